import Foundation
import Testing
import MatrixEngine
import MatrixModel
@testable import ServerEnvironment

/// The backend `--server` starts is contained as a driver is: it holds no descriptor of the runner's, and
/// stopping it ends everything it started, also what left its process group.
@Suite("The backend's process")
struct BackendProcessTests {
    static let linux = FileManager.default.fileExists(atPath: "/proc/self/environ")

    /// Starts `script` under /bin/sh as a backend (without waiting for it to listen) and waits until `file` exists.
    static func launch(_ script: String, waitingFor file: URL) async throws -> BackendProcess {
        let process = try BackendProcess.launch(["/bin/sh", "-c", script], environment: [:], port: 1, token: "test-\(UUID().uuidString)",
                                                watchdog: nil, log: nil)
        let deadline = ContinuousClock.now + .seconds(10)
        while !FileManager.default.fileExists(atPath: file.path) || ((try? Data(contentsOf: file))?.isEmpty ?? true), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        return process
    }

    @Test("a backend holds no descriptor of the runner's: only its standard input, output and error", .timeLimit(.minutes(1)))
    func closedDescriptorTable() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("backend-fds-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        // A descriptor the runner holds without close-on-exec, as one inherited from its own parent would be.
        let inherited = open("/dev/null", O_RDONLY)
        defer { close(inherited) }
        #expect(inherited > 2)
        let listing = scratch.appendingPathComponent("fds")
        let process = try await Self.launch("ls /dev/fd > \(listing.path); exec sleep 30", waitingFor: listing)
        await process.stop()
        let open = try String(contentsOf: listing, encoding: .utf8).split(separator: "\n").compactMap { Int32($0) }
        #expect(!open.contains(inherited), "\(open)")
        // 0, 1, 2, and the descriptor ls reads /dev/fd with.
        #expect(open.allSatisfy { $0 <= 3 }, "\(open)")
    }

    @Test("a run whose backend does not hold its notification port stops after the first exchange, recording nothing another process answered",
          .enabled(if: linux, "reads /proc"), .timeLimit(.minutes(1)))
    func answeredByAnother() async throws {
        // The test's own backend answers on the port; the process the runner started (a shell that sleeps) never listens.
        let other = try TestBackend(matrix: ServerRunTests.release)
        let settings = try ServerRunTests.settings(other)
        let process = try BackendProcess.launch(["/bin/sh", "-c", "exec sleep 300"], environment: [:], port: settings.notifyURL.port,
                                                token: "test-\(UUID().uuidString)", watchdog: nil, log: nil)
        var adapter = ServerAdapter(settings: settings)
        adapter.attach(process, scratch: FileManager.default.temporaryDirectory.appendingPathComponent("absent-\(UUID().uuidString)"))
        let sink = ServerRunTests.Sink()
        let context = RunContext(runID: "test", environment: "server", build: "test", device: "test", os: "test")
        let matrix = ServerRunTests.release
        let cases = [try #require(matrix.cases.firstIndex { $0.id == "fresh-purchase/pro" }), try #require(matrix.cases.firstIndex { $0.id == "refund/pro" })]
        let summary = try await Runner(matrix: matrix, adapter: adapter, context: context, jobs: 1).run(cases: cases, into: sink)
        // The other process's server answers until here.
        withExtendedLifetime(other) {}
        await adapter.shutdown()
        #expect(await sink.records.isEmpty)
        #expect(summary.interrupted)
        #expect(adapter.backendProblem?.contains("127.0.0.1:\(settings.notifyURL.port) is now held by another process (process \(getpid())), "
                                                 + "not by the backend (`/bin/sh -c exec sleep 300`)") == true, "\(adapter.backendProblem ?? "")")
    }

    @Test("stopping a launcher that started its server in a session of its own and exited ends the server",
          .enabled(if: linux, "finds processes by their token in /proc"), .timeLimit(.minutes(1)))
    func launcherStopped() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("backend-launcher-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let pidFile = scratch.appendingPathComponent("pid")
        let process = try await Self.launch("setsid sleep 300 & echo $! > \(pidFile.path); exit 0", waitingFor: pidFile)
        let server = try #require(Int32(try String(contentsOf: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        defer { kill(server, SIGKILL) }
        #expect(kill(server, 0) == 0)
        await process.stop()
        // Stopped means ended: gone, or a zombie waiting for the parent it was given.
        var gone = false
        let deadline = ContinuousClock.now + .seconds(5)
        while !gone, ContinuousClock.now < deadline {
            let state = (try? String(contentsOfFile: "/proc/\(server)/stat", encoding: .utf8)).flatMap { stat in
                stat.lastIndex(of: ")").map { stat[stat.index(after: $0)...].split(separator: " ").first.map(String.init) ?? "" }
            }
            gone = state == nil || state == "Z"
            if !gone { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(gone, "the server the launcher started still runs")
    }
}
