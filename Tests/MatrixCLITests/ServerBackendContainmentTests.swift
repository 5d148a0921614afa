import Foundation
import Testing
import LoopbackHTTP
@testable import MatrixCLI
@testable import TestSupport

/// `--server` backends are contained as drivers are, and checked: a backend that is not the one answering, or that
/// dies, ends the run with exit 69; nothing it started outlives the run, also when the runner is killed.
@Suite("matrix run --server: the backend's process")
struct ServerBackendContainmentTests {
    static let python3Available = ExecEndToEndTests.python3Available

    /// The Python interpreter itself, not a version manager's shim in front of it (a shell script that takes
    /// seconds on a loaded machine).
    static func python3() async -> String {
        guard let result = try? await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", "import sys; print(sys.executable)"])
        else { return "python3" }
        let path = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        return FileManager.default.isExecutableFile(atPath: path) ? path : "python3"
    }

    /// A backend in Python: answers 200 to every notification and `{"access": []}` to every access request on
    /// MATRIX_PORT, writes its process ID to the file its first argument names, and exits after as many requests
    /// as its second argument says (0: never).
    static let backend = #"""
    import http.server, os, sys
    pidfile, limit = sys.argv[1], int(sys.argv[2])
    with open(pidfile, "a") as f:
        f.write(f"{os.getpid()}\n")
    served = 0
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        def answer(self, body):
            global served
            length = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(length)
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            self.wfile.flush()
            served += 1
            if limit and served >= limit:
                os._exit(0)
        def do_POST(self): self.answer(b"")
        def do_GET(self): self.answer(b'{"access": []}')
        def do_HEAD(self): self.answer(b"")
        def log_message(self, *args): pass
    http.server.HTTPServer(("127.0.0.1", int(os.environ["MATRIX_PORT"])), Handler).serve_forever()
    """#

    struct Scratch {
        let root: URL
        var matrix: String { root.appendingPathComponent("small.json").path }
        var script: String { root.appendingPathComponent("backend.py").path }
        var pids: URL { root.appendingPathComponent("pids") }
        var temporary: URL { root.appendingPathComponent("tmp") }
        var reports: URL { root.appendingPathComponent("reports") }

        init(_ name: String) throws {
            root = try MatrixBinary.scratchDirectory(name)
            _ = try ServerRunCommandTests.smallMatrix(in: root)
            try Data(ServerBackendContainmentTests.backend.utf8).write(to: root.appendingPathComponent("backend.py"))
            try FileManager.default.createDirectory(at: root.appendingPathComponent("tmp"), withIntermediateDirectories: true)
        }

        func remove() { try? FileManager.default.removeItem(at: root) }

        /// The process IDs written to the pid file so far.
        func written() -> [Int32] {
            ((try? String(contentsOf: pids, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { Int32($0) }
        }

        /// The server run's arguments with `--server command`.
        func arguments(_ command: String) -> [String] {
            ["run", matrix, "--out", reports.path, "--env", "server", "--quiet", "--server", command,
             "--notify-url", "http://127.0.0.1:{port}/n", "--access-url", "http://127.0.0.1:{port}/a/{appAccountToken}"]
        }

        /// What the run left in its temporary folder (the run's scratch folder with its key, if anything).
        func leftovers() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []).filter { $0.hasPrefix("matrix-server-") }
        }

        func run(_ command: String) async throws -> MatrixBinary.Result {
            try await MatrixBinary.run(arguments(command), environment: ["TMPDIR": temporary.path])
        }

        /// The run directory's run.json.
        func manifest() throws -> [String: Any] {
            let found = try #require(FileManager.default.enumerator(atPath: reports.path)?.compactMap { $0 as? String }.first { $0.hasSuffix("run.json") })
            return try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: reports.appendingPathComponent(found))) as? [String: Any])
        }
    }

    /// Whether `pid` is gone (or a zombie no one has reaped yet), waiting up to `limit` for it.
    static func gone(_ pid: Int32, within limit: Duration = .seconds(20)) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if kill(pid, 0) != 0 { return true }
            if let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")"),
               stat[stat.index(after: close)...].split(separator: " ").first == "Z" { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    @Test("a --server backend that never listens, while another process holds its port, is refused with exit 69 instead of passing",
          .enabled(if: FileManager.default.fileExists(atPath: "/proc/net/tcp"), "reads /proc"), .timeLimit(.minutes(3)))
    func portHeldByAnother() async throws {
        let scratch = try Scratch("server-held-port")
        defer { scratch.remove() }
        let other = try LoopbackHTTPServer.start { request in
            request.method == "POST" ? HTTPResponse(status: 200) : .json(200, Array(#"{"access": []}"#.utf8))
        }
        defer { other.stop() }
        var arguments = scratch.arguments("/bin/sh -c 'exec sleep 30'")
        arguments[arguments.firstIndex(of: "http://127.0.0.1:{port}/n")!] = "http://127.0.0.1:\(other.port)/n"
        arguments[arguments.firstIndex(of: "http://127.0.0.1:{port}/a/{appAccountToken}")!] = "http://127.0.0.1:\(other.port)/a/{appAccountToken}"
        let run = try await CapturedRun.run(arguments)
        #expect(run.status == 69, "\(run.stderr)")
        #expect(run.stderr.contains("127.0.0.1:\(other.port) is held by another process (process \(getpid())), not by the backend"), "\(run.stderr)")
    }

    @Test("run.json records the --server command, split into its arguments", .enabled(if: python3Available, "needs python3"), .timeLimit(.minutes(3)))
    func recordsCommand() async throws {
        let scratch = try Scratch("server-recorded")
        defer { scratch.remove() }
        let python = await Self.python3()
        let run = try await scratch.run("\(python) \(scratch.script) \(scratch.pids.path) 0")
        #expect(run.status == 1, "the backend grants nothing: \(run.stderr)")
        #expect(try scratch.manifest()["server"] as? [String] == [python, scratch.script, scratch.pids.path, "0"])
        #expect(scratch.leftovers().isEmpty)
    }

    @Test("a backend that dies during the run stops it at once with exit 69; the steps before are kept, the run is interrupted",
          .enabled(if: python3Available, "needs python3"), .timeLimit(.minutes(3)))
    func backendDies() async throws {
        let scratch = try Scratch("server-dies")
        defer { scratch.remove() }
        let python = await Self.python3()
        // Step 0's access request and step 1's notification: then it exits, and step 1's access request finds nothing listening.
        let run = try await scratch.run("\(python) \(scratch.script) \(scratch.pids.path) 2")
        #expect(run.status == 69, "\(run.stderr)")
        #expect(run.stderr.contains("the backend stopped during the run: nothing listens on 127.0.0.1:"), "\(run.stderr)")
        let manifest = try scratch.manifest()
        #expect(manifest["status"] as? String == "interrupted")
        #expect(scratch.leftovers().isEmpty)
    }

    @Test("a launcher that starts the server in a session of its own and exits leaves nothing running after matrix exits",
          .enabled(if: python3Available && FileManager.default.isExecutableFile(atPath: "/usr/bin/setsid"), "needs python3 and setsid"),
          .timeLimit(.minutes(3)))
    func launcherContained() async throws {
        let scratch = try Scratch("server-launcher")
        defer { scratch.remove() }
        let python = await Self.python3()
        let run = try await scratch.run("/bin/sh -c 'setsid \(python) \(scratch.script) \(scratch.pids.path) 0 & exit 0'")
        #expect(run.status == 1, "\(run.stderr)")
        let server = try #require(scratch.written().first)
        #expect(await Self.gone(server, within: .seconds(10)), "the server the launcher started still runs after matrix exited")
        if kill(server, 0) == 0 { kill(server, SIGKILL) }
    }

    @Test("SIGKILL of the runner while it waits for its backend: the backend, what it started and the key's folder are gone within seconds",
          .enabled(if: FileManager.default.fileExists(atPath: "/proc/self/environ") && FileManager.default.isExecutableFile(atPath: "/usr/bin/setsid"),
                   "finds processes in /proc; needs setsid"), .timeLimit(.minutes(3)))
    func runnerKilled() async throws {
        let scratch = try Scratch("server-killed")
        defer { scratch.remove() }
        // A backend that never listens: its shell, a child in its group and a child in a session of its own.
        let pids = scratch.pids.path
        let command = "/bin/sh -c 'echo $$ >> \(pids); sleep 300 & echo $! >> \(pids); setsid sleep 300 & echo $! >> \(pids); wait'"
        let process = try ChildProcess(MatrixBinary.url, scratch.arguments(command),
                                       environment: MatrixBinary.environment(["TMPDIR": scratch.temporary.path]), stderr: .capture)
        // The deterministic point: all three processes exist, and the key's folder does.
        let deadline = ContinuousClock.now + .seconds(60)
        while scratch.written().count < 3, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        let backend = scratch.written()
        try #require(backend.count == 3, "the backend did not start")
        #expect(scratch.leftovers().count == 1)
        process.signal(SIGKILL)
        _ = await process.exit()
        for pid in backend {
            #expect(await Self.gone(pid), "process \(pid) of the backend outlived the runner")
        }
        let cleared = ContinuousClock.now + .seconds(20)
        while !scratch.leftovers().isEmpty, ContinuousClock.now < cleared { try await Task.sleep(for: .milliseconds(20)) }
        #expect(scratch.leftovers().isEmpty, "the key's folder outlived the runner")
        for pid in backend where kill(pid, 0) == 0 { kill(pid, SIGKILL) }
    }

    @Test("SIGINT while the runner waits for its backend to listen stops it at once, exit 130, the backend and the key's folder gone",
          .timeLimit(.minutes(3)))
    func interruptedWhileStarting() async throws {
        let scratch = try Scratch("server-interrupted")
        defer { scratch.remove() }
        let pids = scratch.pids.path
        let process = try ChildProcess(MatrixBinary.url, scratch.arguments("/bin/sh -c 'echo $$ >> \(pids); exec sleep 300'"),
                                       environment: MatrixBinary.environment(["TMPDIR": scratch.temporary.path]), stderr: .capture)
        let deadline = ContinuousClock.now + .seconds(60)
        while scratch.written().isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        let backend = try #require(scratch.written().first, "the backend did not start")
        let signalled = ContinuousClock.now
        process.signal(SIGINT)
        let result = try await process.finish()
        // Without the trap the wait runs its 30 s and the run exits 69 saying the backend did not listen: 130 and
        // this message say the signal ended it (a third of a second after it, on an idle machine).
        _ = signalled
        #expect(result.exit == ChildProcess.Exit(status: 130, signalled: false), "\(result.stderr)")
        #expect(result.stderr.contains("stopped on a signal while waiting for the backend to listen"), "\(result.stderr)")
        #expect(await Self.gone(backend))
        #expect(scratch.leftovers().isEmpty)
        if kill(backend, 0) == 0 { kill(backend, SIGKILL) }
    }

    @Test("a watchdog started by hand, without a run's pipe or outside the temporary directory, does nothing")
    func watchdogByHand() async throws {
        let scratch = try Scratch("server-watchdog-hand")
        defer { scratch.remove() }
        let precious = scratch.root.appendingPathComponent("precious")
        try FileManager.default.createDirectory(at: precious, withIntermediateDirectories: true)
        let ran = try await MatrixBinary.run(["__contain", "token", precious.path])
        #expect(ran.status == 64)
        #expect(FileManager.default.fileExists(atPath: precious.path))
    }

    @Test("a server run removes the key folders of runs whose runner was killed before it could, and only those")
    func abandonedFolders() async throws {
        let scratch = try Scratch("server-abandoned")
        defer { scratch.remove() }
        // A process ID that no longer runs: a child that has exited and been reaped.
        let ended = try ChildProcess(URL(fileURLWithPath: "/bin/true"), [])
        _ = await ended.exit()
        let abandoned = scratch.temporary.appendingPathComponent("matrix-server-\(ended.pid)-12345")
        let alive = scratch.temporary.appendingPathComponent("matrix-server-\(getpid())-12345")
        for folder in [abandoned, alive] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data("key".utf8).write(to: folder.appendingPathComponent("SubscriptionKey.p8"))
        }
        let run = try await scratch.run("/bin/sh -c 'exit 3'")
        #expect(run.status == 69, "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: abandoned.path))
        #expect(FileManager.default.fileExists(atPath: alive.path))
    }
}
