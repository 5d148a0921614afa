import Foundation
import Testing
import LoopbackHTTP
import MatrixModel
@testable import ServerEnvironment

/// Apple's delivery semantics, collapsed onto the virtual clock.
/// Apple: https://developer.apple.com/documentation/appstoreservernotifications/responding-to-app-store-server-notifications
@Suite("Delivering notifications as the App Store does")
struct DeliverySemanticsTests {
    let release = ServerRunTests.release
    static let hour: Int64 = 3_600_000

    @Test("production retries an unanswered notification after 1, 12, 24, 48 and 72 hours, same notificationUUID and signedDate")
    func productionRetrySchedule() async throws {
        let backend = try TestBackend(matrix: release, behaviour: .init(alwaysStatus: 500))
        let records = try await ServerRunTests.run(release, ServerRunTests.settings(backend), cases: ["fresh-purchase/pro"])
        let purchase = try #require(records.first { $0.step == 1 })
        let delivery = try #require(purchase.observed?.server?.deliveries.first)
        #expect(delivery.attempts.map(\.attemptDate) == [0, 1, 13, 37, 85, 157].map { delivery.signedDate + $0 * Self.hour })
        #expect(delivery.attempts.allSatisfy { $0.sendAttemptResult == "UNSUCCESSFUL_HTTP_RESPONSE_CODE" && $0.httpStatus == 500 })
        #expect(Set(backend.received.map(\.notificationUUID)) == [delivery.notificationUUID])
        #expect(Set(backend.received.map(\.signedDate)).count == 1)
        #expect(purchase.verdict == .fail)
        #expect(purchase.reason?.contains("the backend never acknowledged ONE_TIME_CHARGE \(delivery.notificationUUID)") == true)
    }

    @Test("a notification answered on its third attempt counts as delivered, and the evidence has each attempt")
    func retryThenSuccess() async throws {
        let backend = try TestBackend(matrix: release, behaviour: .init(failFirstAttempts: 2))
        let records = try await ServerRunTests.run(release, ServerRunTests.settings(backend), cases: ["refund/pro", "renewal/plus-monthly"])
        #expect(ServerRunTests.failing(records) == [])
        let deliveries = records.compactMap(\.observed?.server).flatMap(\.deliveries)
        #expect(deliveries.count == 5)
        for delivery in deliveries {
            #expect(delivery.attempts.map(\.sendAttemptResult) == ["UNSUCCESSFUL_HTTP_RESPONSE_CODE", "UNSUCCESSFUL_HTTP_RESPONSE_CODE", "SUCCESS"])
            #expect(delivery.attempts.map(\.attemptDate) == [0, 1, 13].map { delivery.signedDate + $0 * Self.hour })
        }
    }

    @Test("the sandbox sends each notification once: one failed attempt and the step fails")
    func sandboxSendsOnce() async throws {
        let backend = try TestBackend(matrix: release, behaviour: .init(failFirstAttempts: 1))
        let records = try await ServerRunTests.run(release, ServerRunTests.settings(backend, delivery: .sandbox), cases: ["refund/pro"])
        let attempts = records.compactMap(\.observed?.server).flatMap(\.deliveries).map(\.attempts.count)
        #expect(attempts == [1])
        #expect(records.map(\.verdict) == [.pass, .fail, .blocked, .blocked])
    }

    @Test("a backend that ignores REFUND and REVOKE fails exactly the refund and revocation steps of the release matrix")
    func ignoresRevocations() async throws {
        let backend = try TestBackend(matrix: release, behaviour: .init(ignoredTypes: ["REFUND", "REVOKE"]))
        let records = try await ServerRunTests.run(release, ServerRunTests.settings(backend))
        let failed = records.filter { $0.verdict == .fail }
        #expect(!failed.isEmpty)
        #expect(failed.allSatisfy { $0.action.action == .refund || $0.action.action == .revokeFamilySharing })
        let revoking = records.filter { $0.action.action == .refund || $0.action.action == .revokeFamilySharing }
        #expect(failed.count == revoking.count)
        #expect(records.allSatisfy { $0.verdict == .pass || $0.verdict == .fail || $0.verdict == .blocked })
    }

    @Test("shuffled: the same seed gives the same order, the order differs from the store's, and latest-signedDate-wins is what passes")
    func shuffled() async throws {
        let cases = ["renewal/while-closed", "environment-limit/sandbox-12-renewals", "environment-limit/testflight-daily-renewals"]
        let careful = try TestBackend(matrix: release)
        let first = try await ServerRunTests.run(release, ServerRunTests.settings(careful, delivery: .shuffled, seed: 42), cases: cases)
        #expect(ServerRunTests.failing(first) == [])
        let again = try TestBackend(matrix: release)
        let second = try await ServerRunTests.run(release, ServerRunTests.settings(again, delivery: .shuffled, seed: 42), cases: cases)
        func order(_ records: [EvidenceRecord]) -> [[Int64]] { records.compactMap(\.observed?.server).map { $0.deliveries.map(\.signedDate) } }
        #expect(order(first) == order(second))
        #expect(order(first).contains { $0 != $0.sorted() })
        let naive = try TestBackend(matrix: release, behaviour: .init(lastReceivedWins: true))
        let inOrder = try await ServerRunTests.run(release, ServerRunTests.settings(naive), cases: cases)
        #expect(ServerRunTests.failing(inOrder) == [])
        let naiveShuffled = try TestBackend(matrix: release, behaviour: .init(lastReceivedWins: true))
        let shuffledRun = try await ServerRunTests.run(release, ServerRunTests.settings(naiveShuffled, delivery: .shuffled, seed: 42), cases: cases)
        #expect(!ServerRunTests.failing(shuffledRun).isEmpty)
    }

    @Test("duplicated: every notification comes twice, the copy at the next step; a backend that counts them fails, one that ignores them passes")
    func duplicated() async throws {
        let cases = ["refund/pro", "family-sharing/non-consumable", "renewal/plus-monthly", "restore/after-reinstall", "upgrade/plus-to-premium"]
        let careful = try TestBackend(matrix: release)
        let records = try await ServerRunTests.run(release, ServerRunTests.settings(careful, delivery: .duplicated, seed: 3), cases: cases)
        #expect(ServerRunTests.failing(records) == [])
        let deliveries = records.compactMap(\.observed?.server).flatMap(\.deliveries)
        let originals = deliveries.filter { $0.origin == "step" }
        let copies = deliveries.filter { $0.origin == "duplicate" }
        #expect(Set(copies.map(\.notificationUUID)) == Set(originals.map(\.notificationUUID)))
        #expect(copies.count == originals.count && copies.count >= 8)
        // A copy is delivered after its original: in the next step, or at the end of a case's last step.
        let refund = try #require(records.first { $0.case == "refund/pro" && $0.step == 2 }?.observed?.server)
        #expect(Set(refund.deliveries.map(\.name)) == ["ONE_TIME_CHARGE", "REFUND"])
        #expect(refund.deliveries.first { $0.name == "ONE_TIME_CHARGE" }?.origin == "duplicate")

        let counting = try TestBackend(matrix: release, behaviour: .init(countsOneTimePurchases: true))
        let once = try await ServerRunTests.run(release, ServerRunTests.settings(counting), cases: cases)
        #expect(ServerRunTests.failing(once) == [])
        let countingTwice = try TestBackend(matrix: release, behaviour: .init(countsOneTimePurchases: true))
        let twice = try await ServerRunTests.run(release, ServerRunTests.settings(countingTwice, delivery: .duplicated, seed: 3), cases: cases)
        let failed = twice.filter { $0.verdict == .fail }.map { "\($0.case)#\($0.step)" }
        #expect(failed.contains("refund/pro#2"))
        #expect(failed.allSatisfy { $0.hasPrefix("refund/") || $0.hasPrefix("family-sharing/") })
    }

    @Test("each attempt's failure gets Apple's sendAttemptResult value", arguments: [
        ("refused", "SOCKET_ISSUE"), ("silent", "TIMED_OUT"), ("garbage", "INVALID_RESPONSE"), ("redirect", "UNSUCCESSFUL_HTTP_RESPONSE_CODE"),
    ])
    func sendAttemptResults(_ backend: String, _ expected: String) async throws {
        let listener = try LoopbackHTTPServer.start { _ in
            backend == "redirect" ? HTTPResponse(status: 302, headers: [("Location", "http://example.com/")]) : HTTPResponse(status: 200)
        }
        var port = listener.port
        var keep: AnyObject?
        switch backend {
        case "refused":
            listener.stop()
            port = try FreePort.unused()
        case "silent":
            let (socket, silentPort) = try FreePort.silentListener()
            keep = socket
            port = silentPort
        case "garbage":
            let (socket, garbagePort) = try FreePort.silentListener()
            keep = socket
            port = garbagePort
            let fd = socket.fd
            Thread {
                let client = accept(fd, nil, nil)
                let text = Array("SMTP ready\r\n\r\n".utf8)
                _ = text.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                close(client)
            }.start()
        default:
            break
        }
        let url = try LoopbackURL.parse("http://127.0.0.1:\(port)/n", option: "--notify-url", pickedPort: nil)
        let poster = NotificationPoster(url: url, limits: HTTPLimits(timeout: .milliseconds(200)))
        let attempt = try #require(await poster.attempt(OutgoingNotification(notificationUUID: "u", notificationType: "TEST", signedDate: 9, account: "a",
                                                                             origin: "step", signedPayload: "a.b.c"), at: 9))
        #expect(attempt.sendAttemptResult == expected, "\(attempt)")
        #expect(attempt.attemptDate == 9)
        _ = keep
        listener.stop()
    }
}

import EvidenceStore

/// Ports for failure tests.
enum FreePort {
    /// A port nothing listens on (bound a moment ago and closed).
    static func unused() throws -> UInt16 {
        let server = try LoopbackHTTPServer.start { _ in HTTPResponse(status: 200) }
        server.stop()
        // The accept loop closes its socket within 200 ms; ask the kernel for another free port instead.
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return UInt16(bigEndian: address.sin_port)
    }

    final class Socket {
        let fd: Int32
        init(fd: Int32) { self.fd = fd }
        deinit { close(fd) }
    }

    /// A socket that listens and never accepts: connections wait in its backlog, unanswered.
    static func silentListener() throws -> (Socket, UInt16) {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        let socket = Socket(fd: Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0))
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket.fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        _ = listen(socket.fd, 8)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket.fd, $0, &length) } }
        return (socket, UInt16(bigEndian: address.sin_port))
    }
}
