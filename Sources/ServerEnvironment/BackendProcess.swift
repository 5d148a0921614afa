import ExecEnvironment
import Foundation
import LoopbackHTTP
import Threading

/// The backend under test, started by the runner (`--server CMD`), contained as a driver is: a child process in
/// its own process group, with the runner's URLs in its environment and a token that marks it and everything it
/// starts (``DriverContainment``), no descriptor of the runner's but its standard ones, and a
/// ``ContainmentWatchdog`` (when the runner is the `matrix` executable) that ends it should the runner end
/// without stopping it.
///
/// It counts as running while the listening socket of its notification port belongs to one of its processes:
/// the process the runner started, or any process it started, also one that left its process group or outlived
/// it (Linux reads this from /proc; elsewhere, while the process the runner started runs or the port accepts
/// connections). That is checked before the run starts and after every step (``problem()``): a backend that
/// failed to start while something else holds its port, or that dies during the run, ends the run (exit 69)
/// instead of letting another process's answers pass for its own.
///
/// ``stop()`` ends all of it: SIGTERM to its process group and to every process with its token, SIGKILL after 5
/// seconds to whatever is left. Its standard output and error are read line by line on a thread of their own;
/// the last 20 lines are kept for error messages, and each line goes to `log` (`--verbose`).
public final class BackendProcess: Sendable {
    /// The process the runner started, which is also its process group's ID.
    public let pid: Int32
    /// The command, for messages.
    let command: String
    /// The port whose listening socket must be the backend's.
    let port: UInt16
    /// The value of ``DriverContainment/tokenVariable`` in its environment.
    let token: String
    private let output: OutputLines
    private let exit = Locked<String?>(nil)

    private init(pid: Int32, command: String, port: UInt16, token: String, output: OutputLines) {
        self.pid = pid
        self.command = command
        self.port = port
        self.token = token
        self.output = output
    }

    /// Starts `arguments` (executable first) with this process's environment plus `environment`, and waits
    /// until 127.0.0.1:`port` accepts a connection on a socket of the backend's.
    ///
    /// - Parameter watchdog: the watchdog that ends the backend should the runner end first; it is told the
    ///   backend's process ID (the caller releases it).
    /// - Throws: ``ServerSetupError`` when the executable cannot be found or started, exits before listening,
    ///   does not listen within `timeout`, or the port is held by another process; the message quotes the end of
    ///   its output.
    package static func start(_ arguments: [String], environment: [String: String], port: UInt16, timeout: Duration,
                             token: String = DriverContainment.makeToken(), watchdog: Watchdog? = nil,
                             log: (@Sendable (String) -> Void)? = nil) async throws(ServerSetupError) -> BackendProcess {
        let process = try launch(arguments, environment: environment, port: port, token: token, watchdog: watchdog, log: log)
        do {
            try await process.waitUntilListening(timeout: timeout)
        } catch {
            await process.stop()
            throw error
        }
        return process
    }

    /// Starts the process, contained, without waiting for it to listen.
    static func launch(_ arguments: [String], environment: [String: String], port: UInt16, token: String, watchdog: Watchdog?,
                       log: (@Sendable (String) -> Void)?) throws(ServerSetupError) -> BackendProcess {
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
        var actions = ChildSpawn.makeFileActions()
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
        posix_spawn_file_actions_adddup2(&actions, ends[1], 2)
        // Nothing else the runner holds: not its listening sockets, not a driver's pipes, not the watchdog's pipe.
        ChildSpawn.closeDescriptors(from: 3, &actions)
        var merged = ProcessInfo.processInfo.environment
        for (key, value) in environment { merged[key] = value }
        merged[DriverContainment.tokenVariable] = token
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
        watchdog?.watch(backend: pid)
        let output = OutputLines(fd: ends[0], log: log)
        return BackendProcess(pid: pid, command: arguments.joined(separator: " "), port: port, token: token, output: output)
    }

    /// Waits until the backend listens on its port: until one of its processes holds the port's listening
    /// socket (where that can be read), else until the port accepts a connection while the process runs.
    func waitUntilListening(timeout: Duration) async throws(ServerSetupError) {
        let deadline = ContinuousClock.now + timeout
        while true {
            if Task.isCancelled { throw ServerSetupError("the wait for the backend (`\(command)`) to listen was cancelled") }
            switch holder() {
            case .owned:
                return
            case .other(let pids) where !pids.isEmpty:
                throw ServerSetupError("127.0.0.1:\(port) is held by another process\(Self.named(pids)), not by the backend (`\(command)`), "
                                       + "which therefore cannot listen there; stop that process or give the backend another port" + tail)
            case .other:
                // A socket no process visible here holds: one closing, or another user's. Looked at again.
                break
            case .nobody:
                // A launcher's first process may exit once it has started the server: the backend ends when all of it has.
                if let ended = reap(), running().isEmpty {
                    throw ServerSetupError("the backend (`\(command)`) \(ended) before it listened on 127.0.0.1:\(port)" + tail)
                }
            case .unknown:
                if let ended = reap() {
                    throw ServerSetupError("the backend (`\(command)`) \(ended) before it listened on 127.0.0.1:\(port)" + tail)
                }
                if await Self.accepts(port: port) { return }
            }
            if ContinuousClock.now >= deadline {
                throw ServerSetupError("the backend (`\(command)`) did not listen on 127.0.0.1:\(port) within \(timeout); "
                                       + "check that it serves the port of --notify-url" + tail)
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Who holds the notification port's listening socket: one of the backend's processes, nobody, another
    /// process, or unknown (not Linux).
    func holder() -> ListeningSockets.Holder {
        ListeningSockets.holder(of: port, first: pid) { [pid, token] in
            DriverContainment.processes(of: pid, token: token).filter { !$0.zombie }.map(\.pid)
        }
    }

    /// ``holder()``, looked at again for up to half a second while no visible process holds the socket: a
    /// process that has just ended leaves its listening socket listed for a moment.
    func settledHolder() async -> ListeningSockets.Holder {
        var holder = holder()
        for _ in 0..<10 {
            guard case .other(let pids) = holder, pids.isEmpty else { break }
            try? await Task.sleep(for: .milliseconds(50))
            holder = self.holder()
        }
        return holder
    }

    /// `nil` while the backend runs and listens on its port; else what happened, for the message that ends the
    /// run: it ended, or nothing listens on its port any more, or another process does.
    public func problem() async -> String? {
        switch await settledHolder() {
        case .owned:
            return nil
        case .other(let pids):
            return "127.0.0.1:\(port) is now held by another process\(Self.named(pids)), not by the backend (`\(command)`)"
                + (reap().map { ", which \($0)" } ?? "") + tail
        case .nobody:
            // The listing is read while sockets come and go: nothing listens only if a connection is refused too.
            if await Self.accepts(port: port) { return nil }
            return "nothing listens on 127.0.0.1:\(port) any more: the backend (`\(command)`) " + (reap() ?? "closed its port") + tail
        case .unknown:
            guard let ended = reap(), await !Self.accepts(port: port) else { return nil }
            return "the backend (`\(command)`) \(ended), and nothing listens on 127.0.0.1:\(port) any more" + tail
        }
    }

    static func named(_ pids: [Int32]) -> String {
        pids.isEmpty ? "" : " (process \(pids.prefix(3).map(String.init).joined(separator: ", ")))"
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

    /// How the process the runner started ended, or `nil` while it runs.
    public var exitDescription: String? { reap() }

    /// The last lines it printed, for a message: empty when it printed nothing.
    public var tail: String {
        let lines = output.lines
        return lines.isEmpty ? "" : "; its last output:\n" + lines.map { "    " + $0 }.joined(separator: "\n")
    }

    /// The backend's processes still running, the one the runner started included.
    func running() -> [Int32] {
        let others = DriverContainment.processes(of: pid, token: token).filter { !$0.zombie }.map(\.pid)
        return (reap() == nil ? [pid] : []) + others
    }

    /// Stops the backend and everything it started: SIGTERM to its process group and to each of its processes,
    /// SIGKILL after 5 seconds to whatever is left. The watchdog is released by whoever started it, once the
    /// folder it watches is removed (two removals at once could each stop half-way).
    public func stop() async {
        _ = kill(-pid, SIGTERM)
        for process in running() { _ = kill(process, SIGTERM) }
        let deadline = ContinuousClock.now + .seconds(5)
        while !running().isEmpty, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        _ = kill(-pid, SIGKILL)
        DriverContainment.end(driver: pid, token: token)
        if reap() == nil {
            _ = kill(pid, SIGKILL)
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
