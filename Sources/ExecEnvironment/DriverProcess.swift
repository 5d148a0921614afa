import DriverKit
import Foundation
import Threading

/// A running driver: the child process in its own process group, a writer to its stdin, the lines of its
/// stdout, and the tail of its stderr.
///
/// The child is started with `posix_spawn` in a new process group, with an empty signal mask and every signal
/// at its default disposition (the runner itself ignores and blocks SIGINT and SIGTERM while it runs, and a
/// child would otherwise inherit that and never see the SIGTERM of protocol section 7). A thread of its own
/// reaps it. ``kill()`` signals the whole process group, and every process the driver started that left it
/// (``DriverContainment``), so that whatever the driver started goes too.
final class DriverProcess: Sendable {
    /// The driver's process ID, which is also its process group ID.
    let pid: Int32
    let input: LineWriter
    let output: LineEvents
    let log: OutputTail
    private let termination: TerminationBox
    /// The value of ``DriverContainment/tokenVariable`` in the driver's environment.
    let token: String

    private init(pid: Int32, input: LineWriter, output: LineEvents, log: OutputTail, termination: TerminationBox, token: String) {
        self.pid = pid
        self.input = input
        self.output = output
        self.log = log
        self.termination = termination
        self.token = token
    }

    /// Starts `arguments` (the executable first) with the environment of this process.
    ///
    /// - Parameter logLine: receives each line the driver writes on stderr.
    /// - Throws: ``DriverCommandLine/Problem`` when the executable cannot be found or started.
    static func launch(_ arguments: [String], logLine: (@Sendable (String) -> Void)?) throws(DriverCommandLine.Problem) -> DriverProcess {
        guard let name = arguments.first else { throw DriverCommandLine.Problem(message: "the driver command is empty") }
        let executable = try DriverCommandLine.executable(name)
        var pipes = [Int32](repeating: -1, count: 6)  // stdin read/write, stdout read/write, stderr read/write
        for index in 0..<3 {
            var ends: [Int32] = [-1, -1]
            let made = pipe(&ends)
            if made == 0 {
                // Close-on-exec at once, so that drivers started at the same time do not inherit each other's pipes.
                for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
                pipes[index * 2] = ends[0]
                pipes[index * 2 + 1] = ends[1]
            }
            guard made == 0 else {
                pipes.filter { $0 >= 0 }.forEach { close($0) }
                throw DriverCommandLine.Problem(message: "cannot start the driver: no pipe (\(String(cString: strerror(errno))))")
            }
        }
        let (childIn, parentIn, parentOut, childOut, parentErr, childErr) = (pipes[0], pipes[1], pipes[2], pipes[3], pipes[4], pipes[5])
        var actions = ChildSpawn.makeFileActions()
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, childIn, 0)
        posix_spawn_file_actions_adddup2(&actions, childOut, 1)
        posix_spawn_file_actions_adddup2(&actions, childErr, 2)
        // A driver never holds another process's pipe open (which would keep that pipe from ending).
        ChildSpawn.closeDescriptors(from: 3, &actions)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable.path] + arguments.dropFirst()).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        // The driver's environment is this one's, with a token that marks it and everything it starts.
        let token = DriverContainment.makeToken()
        // ProcessInfo rather than `environ`, which Darwin does not export to Swift.
        var variables = ProcessInfo.processInfo.environment
        variables[DriverContainment.tokenVariable] = token
        var environment: [UnsafeMutablePointer<CChar>?] = variables.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") }
        environment.append(nil)
        defer { environment.forEach { free($0) } }
        var pid: pid_t = 0
        let status = ChildSpawn.spawn(&pid, executable.path, &actions, argv, environment)
        for fd in [childIn, childOut, childErr] { close(fd) }
        guard status == 0 else {
            for fd in [parentIn, parentOut, parentErr] { close(fd) }
            throw DriverCommandLine.Problem(message: "cannot start the driver \(executable.path): \(String(cString: strerror(status)))")
        }
        let termination = TerminationBox()
        let child = pid
        BlockingThread.start(name: "matrix-reaper") {
            var waitStatus: Int32 = 0
            while waitpid(child, &waitStatus, 0) < 0 && errno == EINTR {}
            let signalled = waitStatus & 0x7f
            termination.set(signalled != 0 && signalled != 0x7f
                ? "was killed by signal \(signalled)" : "exited with status \((waitStatus >> 8) & 0xff)")
        }
        let writer = LineWriter(FileHandle(fileDescriptor: parentIn, closeOnDealloc: true))
        let output = LineReader.lines(from: parentOut) { close(parentOut) }
        let log = OutputTail()
        let errorLines = LineReader.lines(from: parentErr, maximumLength: 4096) { close(parentErr) }
        Task.detached {
            for await event in errorLines {
                switch event {
                case .line(let bytes), .overlong(let bytes):
                    let line = String(decoding: bytes, as: UTF8.self)
                    log.append(line)
                    logLine?(line)
                case .end:
                    log.markEnded()
                }
            }
        }
        return DriverProcess(pid: pid, input: writer, output: output, log: log, termination: termination, token: token)
    }

    /// How the process ended ("exited with status 3", "was killed by signal 9"), or `nil` while it runs.
    var exitDescription: String? { termination.value }

    /// Calls `body` once the driver process has ended (at once when it has): its output may still be open, held
    /// by something it started.
    func whenExited(_ body: @escaping @Sendable () -> Void) {
        termination.whenSet(body)
    }

    /// Waits up to `limit` for the process to end; returns how it ended, or `nil` if it still runs.
    func waitForExit(upTo limit: Duration) async -> String? {
        let deadline = ContinuousClock.now + limit
        while true {
            if let value = termination.value { return value }
            if ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Sends `SIGKILL` to the driver's process group and to every process it started that left the group.
    func kill() {
        signalGroup(SIGKILL)
        DriverContainment.end(driver: pid, token: token)
    }

    /// Sends `signal` to the driver's process group (and to the driver, should it have left the group).
    func signalGroup(_ number: Int32) {
        guard pid > 0 else { return }
        _ = Foundation.kill(-pid, number)
        if termination.value == nil { _ = Foundation.kill(pid, number) }
    }
}

/// The last lines a driver wrote on stderr, for error messages.
final class OutputTail: Sendable {
    private let lines = Locked<[String]>([])
    private let ended = Locked(false)
    static let keptLines = 20

    /// The driver's stderr has ended.
    func markEnded() { ended.withLock { $0 = true } }

    /// Waits up to `limit` for the driver's stderr to end, so that its last words are in ``text(limit:)``.
    func waitForEnd(upTo limit: Duration) async {
        let deadline = ContinuousClock.now + limit
        while !ended.withLock({ $0 }), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    func append(_ line: String) {
        lines.withLock { lines in
            lines.append(line)
            if lines.count > Self.keptLines { lines.removeFirst(lines.count - Self.keptLines) }
        }
    }

    /// The last lines, joined with ` | `, at most `limit` characters (the end is kept).
    func text(limit: Int = 600) -> String? {
        let joined = lines.withLock { $0 }.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }.joined(separator: " | ")
        if joined.isEmpty { return nil }
        return joined.count > limit ? "…" + String(joined.suffix(limit)) : joined
    }
}

/// How the process ended, set once by the termination handler, and what to do then.
final class TerminationBox: Sendable {
    private struct State {
        var value: String?
        var waiting: [@Sendable () -> Void] = []
    }

    private let state = Locked(State())

    func set(_ value: String) {
        let waiting = state.withLock { state -> [@Sendable () -> Void] in
            state.value = value
            defer { state.waiting = [] }
            return state.waiting
        }
        for body in waiting { body() }
    }

    var value: String? { state.withLock { $0.value } }

    /// Calls `body` once the value is set (at once when it is).
    func whenSet(_ body: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            if state.value != nil { return true }
            state.waiting.append(body)
            return false
        }
        if now { body() }
    }
}
