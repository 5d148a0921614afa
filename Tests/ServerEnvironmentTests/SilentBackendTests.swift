import Foundation
import Testing
import LoopbackHTTP
import MatrixEngine
import MatrixModel
@testable import ServerEnvironment

/// A backend that accepts connections and never answers costs a step a bounded time, and a cancelled run (a
/// signal) stops at once, not when the step's deliveries end.
@Suite("A silent backend")
struct SilentBackendTests {
    static let release = ServerRunTests.release

    @Test("a step's deliveries to a backend that never answers end within 4 × the request timeout, and the step errors saying so",
          .timeLimit(.minutes(1)))
    func boundedStep() async throws {
        // Access is answered; notifications are held until the test ends.
        let held = DispatchSemaphore(value: 0)
        let backend = try LoopbackHTTPServer.start { request in
            if request.method == "POST" { _ = held.wait(timeout: .now() + 10) }
            return .json(200, Array(#"{"access": []}"#.utf8))
        }
        defer {
            backend.stop()
            for _ in 0..<16 { held.signal() }
        }
        let url = "http://127.0.0.1:\(backend.port)"
        let settings = try ServerSettings(notifyURL: LoopbackURL.parse(url + "/n", option: "--notify-url", pickedPort: nil),
                                          accessURL: LoopbackURL.parse(url + "/a/{appAccountToken}", option: "--access-url", pickedPort: nil,
                                                                       placeholders: LoopbackURL.accessPlaceholders),
                                          timeout: .milliseconds(100), runIdentity: 7)
        #expect(settings.stepLimit == .milliseconds(400))
        let started = ContinuousClock.now
        let records = try await ServerRunTests.run(Self.release, settings, cases: ["fresh-purchase/pro"])
        let elapsed = ContinuousClock.now - started
        // Six attempts of 100 ms would take 600 ms for the purchase's one notification: the bound stops them at 400 ms.
        let purchase = try #require(records.first { $0.step == 1 })
        #expect(purchase.verdict == .error)
        #expect(purchase.reason?.contains("the backend did not answer this step's notifications within 0.4 seconds (4 × --step-timeout 0.1 seconds)") == true,
                "\(purchase.reason ?? "")")
        #expect(elapsed < .seconds(3), "\(elapsed)")
    }

    @Test("cancelling a run whose backend never answers ends the step's delivery within a second, recording nothing of it",
          .timeLimit(.minutes(1)))
    func cancelled() async throws {
        let (socket, port) = try FreePort.silentListener()
        defer { _ = socket }
        let url = "http://127.0.0.1:\(port)"
        let settings = try ServerSettings(notifyURL: LoopbackURL.parse(url + "/n", option: "--notify-url", pickedPort: nil),
                                          accessURL: LoopbackURL.parse(url + "/a/{appAccountToken}", option: "--access-url", pickedPort: nil,
                                                                       placeholders: LoopbackURL.accessPlaceholders),
                                          timeout: .seconds(30), runIdentity: 7)
        let run = Task { try await ServerRunTests.run(Self.release, settings, cases: ["fresh-purchase/pro"]) }
        // The deterministic point: the first delivery's connection waits in the listener's backlog.
        let deadline = ContinuousClock.now + .seconds(20)
        while !FreePort.hasPendingConnection(socket), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(FreePort.hasPendingConnection(socket))
        let cancelledAt = ContinuousClock.now
        run.cancel()
        let records = try await run.value
        #expect(ContinuousClock.now - cancelledAt < .seconds(1))
        #expect(records.allSatisfy { $0.step == 0 }, "only the launch step, which posts nothing, is recorded")
    }
}

extension FreePort {
    /// Whether a connection waits in `socket`'s backlog.
    static func hasPendingConnection(_ socket: Socket) -> Bool {
        var entry = pollfd(fd: socket.fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) > 0
    }
}
