import ExecEnvironment
import Foundation
import Threading
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A process started by a test and awaited without blocking a thread of the test pool.
///
/// Swift Testing runs tests on the cooperative pool, which has one thread per core: a test that waits for a
/// child with `waitUntilExit()` or a blocking pipe read holds one of them for as long as the child runs, and on
/// a two-core machine two such tests stop every other test. Here a thread of the child's own reaps it and hands
/// the exit to the tasks awaiting it, and captured output goes to files read once the child has exited, so a
/// full pipe never stalls the child (nor a grandchild that keeps the output open stalls the test).
///
/// The child starts as from a shell: every signal at its default disposition and none blocked. Foundation's
/// `Process` passes on the test process's, and tests that run `matrix` in process ignore SIGINT, SIGTERM and
/// SIGHUP while a command runs, so a child started then would ignore them too (and keeps them ignored, as
/// `nohup` asks).
public final class ChildProcess: Sendable {
    /// How a child ended.
    public struct Exit: Sendable, Equatable, CustomStringConvertible {
        /// The exit status, or the signal's number when ``signalled`` is true.
        public var status: Int32
        /// Whether a signal ended the child.
        public var signalled: Bool

        public init(status: Int32, signalled: Bool) {
            self.status = status
            self.signalled = signalled
        }

        public var description: String { signalled ? "killed by signal \(status)" : "exit status \(status)" }
    }

    /// Where a child's standard output or error goes.
    public enum Output: Sendable {
        /// `/dev/null`.
        case discard
        /// A temporary file, read by ``finish()``.
        case capture
    }

    /// What a finished child printed and how it ended.
    public struct Result: Sendable {
        public var exit: Exit
        public var stdout: String
        public var stderr: String
    }

    /// The child's process id.
    public let pid: Int32
    private let state = ExitState()
    private let stdoutFile: URL?
    private let stderrFile: URL?

    /// Starts `executable` with `arguments` in `directory` (the test's own when `nil`) with `environment`
    /// (the test's own when `nil`), standard input from `standardInput` (a path, `/dev/null` by default).
    public init(_ executable: URL, _ arguments: [String], in directory: URL? = nil, environment: [String: String]? = nil,
                standardInput: String = "/dev/null", stdout: Output = .discard, stderr: Output = .discard) throws {
        func file(_ output: Output, _ name: String) -> URL? {
            guard case .capture = output else { return nil }
            return FileManager.default.temporaryDirectory.appendingPathComponent("matrix-child-\(UUID().uuidString).\(name)")
        }
        stdoutFile = file(stdout, "out")
        stderrFile = file(stderr, "err")

        var actions = ChildSpawn.makeFileActions()
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, standardInput, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutFile?.path ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderrFile?.path ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        // Nothing else the test process has open (another test's pipes) reaches the child.
        ChildSpawn.closeDescriptors(from: 3, &actions)
        if let directory {
            guard Self.changeDirectory(directory.path, &actions) else {
                throw ChildProcessError(message: "cannot start \(executable.path) in \(directory.path): no posix_spawn_file_actions_addchdir_np")
            }
        }
        #if canImport(Darwin)
        var attributes: posix_spawnattr_t? = nil
        #else
        var attributes = posix_spawnattr_t()
        #endif
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        var flags = Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
        #if canImport(Darwin)
        flags |= Int32(POSIX_SPAWN_CLOEXEC_DEFAULT)  // nothing but the descriptors the actions name
        #endif
        posix_spawnattr_setflags(&attributes, Int16(flags))

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable.path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let variables = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        let envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup($0) } + [nil]
        defer { envp.forEach { free($0) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, executable.path, &actions, &attributes, argv, envp)
        guard status == 0 else {
            throw ChildProcessError(message: "cannot start \(executable.path): \(String(cString: strerror(status)))")
        }
        pid = child
        let state = self.state
        let started = child
        let reaper = Thread {
            var waitStatus: Int32 = 0
            while waitpid(started, &waitStatus, 0) < 0 && errno == EINTR {}
            let signal = waitStatus & 0x7f
            state.ended(signal != 0 && signal != 0x7f ? Exit(status: signal, signalled: true)
                                                      : Exit(status: (waitStatus >> 8) & 0xff, signalled: false))
        }
        reaper.stackSize = 256 << 10
        reaper.start()
    }

    deinit {
        for url in [stdoutFile, stderrFile].compactMap({ $0 }) { try? FileManager.default.removeItem(at: url) }
    }

    /// Whether the child has exited (and been reaped).
    public var hasExited: Bool {
        state.exit != nil
    }

    /// Sends `signal` to the child, unless it has been reaped (its pid may then belong to another process).
    public func signal(_ signal: Int32) {
        guard !hasExited else { return }
        _ = kill(pid, signal)
    }

    /// Waits for the child to exit, without holding a thread. Cancelling the wait (a test's time limit) kills
    /// the child, so that a hanging child ends with its test.
    public func exit() async -> Exit {
        let (pid, state) = (self.pid, self.state)
        return await withTaskCancellationHandler {
            await state.wait()
        } onCancel: {
            if state.exit == nil { _ = kill(pid, SIGKILL) }
        }
    }

    /// Waits for the child to exit and returns what it wrote to the outputs it captured (empty otherwise).
    public func finish() async throws -> Result {
        let exit = await exit()
        func text(_ url: URL?) throws -> String {
            guard let url else { return "" }
            return String(decoding: try Data(contentsOf: url), as: UTF8.self)
        }
        return Result(exit: exit, stdout: try text(stdoutFile), stderr: try text(stderrFile))
    }

    /// Runs `executable` to its end and returns what it printed.
    public static func run(_ executable: URL, _ arguments: [String], in directory: URL? = nil,
                           environment: [String: String]? = nil, standardInput: String = "/dev/null") async throws -> Result {
        try await ChildProcess(executable, arguments, in: directory, environment: environment, standardInput: standardInput,
                               stdout: .capture, stderr: .capture).finish()
    }

    /// Makes the child start in `path` (glibc 2.29 and later, macOS 10.15 and later; looked up at run time).
    private static func changeDirectory(_ path: String, _ actions: inout ChildSpawn.FileActions) -> Bool {
        typealias AddChdir = @convention(c) (UnsafeMutablePointer<ChildSpawn.FileActions>?, UnsafePointer<CChar>?) -> Int32
        #if canImport(Darwin)
        let everywhere = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT
        #else
        let everywhere: UnsafeMutableRawPointer? = nil  // RTLD_DEFAULT
        #endif
        guard let symbol = dlsym(everywhere, "posix_spawn_file_actions_addchdir_np") else { return false }
        return path.withCString { unsafeBitCast(symbol, to: AddChdir.self)(&actions, $0) } == 0
    }
}

/// A child that could not be started.
public struct ChildProcessError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// A child's exit, set once by its reaper, and the tasks waiting for it.
private final class ExitState: Sendable {
    private struct State {
        var ended: ChildProcess.Exit?
        var waiters: [CheckedContinuation<ChildProcess.Exit, Never>] = []
    }

    private let state = Locked(State())

    var exit: ChildProcess.Exit? {
        state.withLock { $0.ended }
    }

    func ended(_ exit: ChildProcess.Exit) {
        let waiting = state.withLock { state -> [CheckedContinuation<ChildProcess.Exit, Never>] in
            state.ended = exit
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiting { waiter.resume(returning: exit) }
    }

    func wait() async -> ChildProcess.Exit {
        await withCheckedContinuation { continuation in
            let exit = state.withLock { state -> ChildProcess.Exit? in
                if let ended = state.ended { return ended }
                state.waiters.append(continuation)
                return nil
            }
            if let exit { continuation.resume(returning: exit) }
        }
    }
}
