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
          .timeLimit(.minutes(3)))
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
                                          timeout: .milliseconds(300), runIdentity: 7)
        #expect(settings.stepLimit == .milliseconds(1200))
        let records = try await ServerRunTests.run(Self.release, settings, cases: ["fresh-purchase/pro"])
        // Six attempts of 0.3 s each would take 1.8 s for the purchase's one notification, and the step would fail as
        // never acknowledged: the bound stops them at 1.2 s, and the step is an error that says so.
        let purchase = try #require(records.first { $0.step == 1 })
        #expect(purchase.verdict == .error)
        #expect(purchase.reason?.contains("the backend did not answer this step's notifications within 1.2 seconds (4 × --step-timeout 0.3 seconds)") == true,
                "\(purchase.reason ?? "")")
    }

    @Test("cancelling a run whose backend never answers ends the request at once, recording nothing of it",
          .timeLimit(.minutes(3)))
    func cancelled() async throws {
        let (socket, port) = try FreePort.silentListener()
        defer { _ = socket }
        let url = "http://127.0.0.1:\(port)"
        let settings = try ServerSettings(notifyURL: LoopbackURL.parse(url + "/n", option: "--notify-url", pickedPort: nil),
                                          accessURL: LoopbackURL.parse(url + "/a/{appAccountToken}", option: "--access-url", pickedPort: nil,
                                                                       placeholders: LoopbackURL.accessPlaceholders),
                                          timeout: .seconds(30), runIdentity: 7)
        let run = Task { try await ServerRunTests.run(Self.release, settings, cases: ["fresh-purchase/pro"]) }
        // The deterministic point: the first request's connection waits in the listener's backlog.
        let deadline = ContinuousClock.now + .seconds(90)
        while !FreePort.hasPendingConnection(socket), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(FreePort.hasPendingConnection(socket))
        let cancelledAt = ContinuousClock.now
        run.cancel()
        let records = try await run.value
        // A tenth of a second on an idle machine; the margin is for a loaded one. Without cancellation the request
        // waits out its 30 s.
        #expect(ContinuousClock.now - cancelledAt < .seconds(20))
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
