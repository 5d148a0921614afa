import ExecEnvironment
import Foundation
import LoopbackHTTP
import Threading

/// The backend under test, started by the runner (`--server CMD`): a child process in its own process group
/// with the runner's URLs in its environment, waited for until its notification port accepts connections, and
/// stopped at the end of the run (SIGTERM to the group, SIGKILL after 5 seconds). It is reaped by `waitpid`
/// without waiting while the runner waits for it to listen, and when it is stopped.
///
/// Its standard output and error are read line by line on a thread of their own; the last 20 lines are kept
/// for error messages, and each line goes to `log` (`--verbose`).
public final class BackendProcess: Sendable {
    public let pid: Int32
    private let output: OutputLines
    private let exit = Locked<String?>(nil)

    private init(pid: Int32, output: OutputLines) {
        self.pid = pid
        self.output = output
    }

    /// Starts `arguments` (executable first) with this process's environment plus `environment`, and waits
    /// until 127.0.0.1:`port` accepts a connection.
    ///
    /// - Throws: ``ServerSetupError`` when the executable cannot be found or started, exits before listening,
    ///   or does not listen within `timeout`; the message quotes the end of its output.
    public static func start(_ arguments: [String], environment: [String: String], port: UInt16, timeout: Duration,
                             log: (@Sendable (String) -> Void)? = nil) async throws(ServerSetupError) -> BackendProcess {
        guard let name = arguments.first else { throw ServerSetupError("--server: the command is empty") }
        let executable: URL
        do {
            executable = try DriverCommandLine.executable(name)
        } catch {
            throw ServerSetupError("--server: \(error.message)")
        }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw ServerSetupError("--server: cannot make a pipe: \(String(cString: strerror(errno)))") }
        for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
        posix_spawn_file_actions_adddup2(&actions, ends[1], 2)
        var merged = ProcessInfo.processInfo.environment
        for (key, value) in environment { merged[key] = value }
        let environ: [UnsafeMutablePointer<CChar>?] = merged.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { environ.forEach { free($0) } }
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable.path] + arguments.dropFirst()).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let status = ChildSpawn.spawn(&pid, executable.path, &actions, argv, environ)
        close(ends[1])
        guard status == 0 else {
            close(ends[0])
            throw ServerSetupError("--server: cannot start \(executable.path): \(String(cString: strerror(status)))")
        }
        let output = OutputLines(fd: ends[0], log: log)
        let process = BackendProcess(pid: pid, output: output)
        let deadline = ContinuousClock.now + timeout
        while true {
            if let ended = process.reap() {
                throw ServerSetupError("the backend (`\(arguments.joined(separator: " "))`) \(ended) before it listened on 127.0.0.1:\(port)"
                                       + process.tail)
            }
            if await Self.accepts(port: port) { return process }
            if ContinuousClock.now >= deadline {
                await process.stop()
                throw ServerSetupError("the backend (`\(arguments.joined(separator: " "))`) did not listen on 127.0.0.1:\(port) within \(timeout); "
                                       + "check that it serves the port of --notify-url" + process.tail)
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Whether something accepts connections on the port (an HTTP request is not needed: a connection is).
    static func accepts(port: UInt16) async -> Bool {
        let answer = await LoopbackHTTPClient.send(HTTPRequest(method: "HEAD", target: "/"), port: port, limits: HTTPLimits(timeout: .milliseconds(500)))
        if case .failure(.socket(.refused)) = answer { return false }
        return true
    }

    /// How the process ended, or `nil` while it runs: reaps it when it has ended (`waitpid` without waiting).
    @discardableResult
    func reap(blocking: Bool = false) -> String? {
        exit.withLock { ended in
            if ended != nil { return ended }
            var waitStatus: Int32 = 0
            var result: pid_t
            repeat {
                result = waitpid(pid, &waitStatus, blocking ? 0 : WNOHANG)
            } while result < 0 && errno == EINTR
            if result == pid {
                let signalled = waitStatus & 0x7f
                ended = signalled != 0 && signalled != 0x7f ? "was killed by signal \(signalled)" : "exited with status \((waitStatus >> 8) & 0xff)"
            } else if result < 0 {
                ended = "ended (its status was not available)"
            }
            return ended
        }
    }

    /// How the process ended, or `nil` while it runs.
    public var exitDescription: String? { reap() }

    /// The last lines it printed, for a message: empty when it printed nothing.
    public var tail: String {
        let lines = output.lines
        return lines.isEmpty ? "" : "; its last output:\n" + lines.map { "    " + $0 }.joined(separator: "\n")
    }

    /// Stops the backend: SIGTERM to its process group, SIGKILL after 5 seconds.
    public func stop() async {
        guard exitDescription == nil else { return }
        _ = kill(-pid, SIGTERM)
        let deadline = ContinuousClock.now + .seconds(5)
        while exitDescription == nil, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        if exitDescription == nil {
            _ = kill(-pid, SIGKILL)
            reap(blocking: true)
        }
    }
}

/// The lines a child prints, read on a thread of their own; the last 20 are kept.
final class OutputLines: Sendable {
    private let kept = Locked<[String]>([])

    init(fd: Int32, log: (@Sendable (String) -> Void)?) {
        Thread { [self] in
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            func emit(_ bytes: [UInt8]) {
                let line = String(decoding: bytes.prefix(500), as: UTF8.self)
                log?(line)
                self.kept.withLock { lines in
                    lines.append(line)
                    if lines.count > 20 { lines.removeFirst(lines.count - 20) }
                }
            }
            while true {
                let count = read(fd, &buffer, buffer.count)
                if count < 0, errno == EINTR { continue }
                if count <= 0 { break }
                for byte in buffer.prefix(count) {
                    if byte == 10 {
                        emit(pending)
                        pending = []
                    } else if pending.count < 4096 {
                        pending.append(byte)
                    }
                }
            }
            if !pending.isEmpty { emit(pending) }
            close(fd)
        }.start()
    }

    var lines: [String] { kept.withLock { $0 } }
}
