import DriverKit
import Foundation
import Threading

/// A process that outlives the runner to clean up after it: a `server` run's backend and the folder that holds
/// the run's `.p8` key, when the runner ends without doing so itself (a trap, SIGKILL, an out-of-memory kill).
///
/// The runner starts it as `matrix __contain TOKEN FOLDER` (``command``), in a process group of its own, holding
/// only the read end of a pipe (descriptor 3) whose write end only the runner holds. The runner writes
/// `backend PID` once it has started the backend, and `stopped` once it has stopped the backend itself. The
/// kernel closes the write end whenever the runner ends, however it ends: at the end of the pipe the watchdog
/// ends the backend unless told `stopped` (SIGTERM to its process group and to every process carrying its
/// token, SIGKILL after 2 seconds), removes the folder, and exits.
///
/// The pipe is used rather than `PR_SET_PDEATHSIG`, which exists on Linux only, fires when the *thread* that
/// started the child ends rather than the process, and reaches only that child, not what the child started.
/// Where /proc exists (Linux) a backend's processes are found also when they left its process group; elsewhere
/// only the process group is signalled.
package enum ContainmentWatchdog {
    /// The hidden first argument of `matrix` that runs ``main(_:)``.
    package static let command = "__contain"

    /// How the name of a folder the watchdog removes starts: a server run's scratch folder, in the temporary
    /// directory.
    package static let folderPrefix = "matrix-server-"

    /// The `matrix` executable, set by it at launch; `nil` in any other process (a test host), which then starts
    /// no watchdog.
    package static var executable: URL? {
        get { executableURL.withLock { $0 } }
        set { executableURL.withLock { $0 = newValue } }
    }

    private static let executableURL = Locked<URL?>(nil)

    /// The watchdog's body: reads the pipe on descriptor 3 to its end, then cleans up.
    ///
    /// - Parameter arguments: the token of the backend's processes and the folder to remove (`-` for none).
    /// - Returns: the exit status: 0, or 64 for arguments it does not understand.
    package static func main(_ arguments: [String]) -> Int32 {
        guard arguments.count == 2, !arguments[0].isEmpty else { return 64 }
        let token = arguments[0]
        let folder = arguments[1] == "-" ? nil : arguments[1]
        // Started by hand rather than by a run, it does nothing: descriptor 3 must be a pipe, and the folder one a
        // server run makes in the temporary directory.
        var status = stat()
        guard fstat(3, &status) == 0, status.st_mode & S_IFMT == S_IFIFO else { return 64 }
        if let folder {
            let url = URL(fileURLWithPath: folder).standardizedFileURL
            let temporary = FileManager.default.temporaryDirectory.standardizedFileURL
            guard url.deletingLastPathComponent().path == temporary.path, url.lastPathComponent.hasPrefix(folderPrefix) else { return 64 }
        }
        var backend: Int32?
        var stopped = false
        var line: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        while true {
            let count = read(3, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            for byte in buffer.prefix(count) {
                guard byte == 10 else {
                    if line.count < 64 { line.append(byte) }
                    continue
                }
                let words = String(decoding: line, as: UTF8.self).split(separator: " ")
                if words.count == 2, words[0] == "backend", let pid = Int32(words[1]), pid > 1 { backend = pid }
                if words == ["stopped"] { stopped = true }
                line = []
            }
        }
        if !stopped { end(backend: backend, token: token) }
        if let folder {
            // The runner may be removing it at the same moment: what one of two removals leaves, the next takes.
            for _ in 0..<3 where FileManager.default.fileExists(atPath: folder) {
                try? FileManager.default.removeItem(atPath: folder)
            }
        }
        return 0
    }

    /// Ends the backend's process group and every process carrying its token: SIGTERM, then SIGKILL to what is
    /// left after 2 seconds.
    static func end(backend: Int32?, token: String) {
        func remaining() -> [Int32] {
            DriverContainment.processes(of: backend ?? -1, token: token).filter { !$0.zombie }.map(\.pid)
        }
        func groupAlive() -> Bool {
            guard let backend else { return false }
            return kill(-backend, 0) == 0
        }
        if let backend { _ = kill(-backend, SIGTERM) }
        for pid in remaining() { _ = kill(pid, SIGTERM) }
        let deadline = ContinuousClock.now + .seconds(2)
        while ContinuousClock.now < deadline, groupAlive() || !remaining().isEmpty {
            usleep(20_000)
        }
        if let backend { _ = kill(-backend, SIGKILL) }
        for pid in remaining() { _ = kill(pid, SIGKILL) }
    }

    /// Starts a watchdog for processes carrying `token` and for `folder`.
    ///
    /// - Throws: ``DriverCommandLine/Problem`` when the pipe cannot be made or the process cannot be started.
    package static func start(executable: URL, token: String, folder: URL?) throws(DriverCommandLine.Problem) -> Watchdog {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw DriverCommandLine.Problem(message: "cannot make a pipe: \(String(cString: strerror(errno)))") }
        for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        // The read end above 3, so that placing it at 3 is a real dup2 (one onto itself would keep close-on-exec).
        let reading = fcntl(ends[0], F_DUPFD_CLOEXEC, 10)
        close(ends[0])
        guard reading >= 0 else {
            close(ends[1])
            throw DriverCommandLine.Problem(message: "cannot make a pipe: \(String(cString: strerror(errno)))")
        }
        ends[0] = reading
        var actions = ChildSpawn.makeFileActions()
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, ends[0], 3)
        ChildSpawn.closeDescriptors(from: 4, &actions)
        let folderArgument: String = folder.map(\.path) ?? "-"
        let words: [String] = [executable.path, command, token, folderArgument]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        // The watchdog is not one of the backend's processes: it must not end itself.
        var variables = ProcessInfo.processInfo.environment
        variables[DriverContainment.tokenVariable] = nil
        let environment: [UnsafeMutablePointer<CChar>?] = variables.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { environment.forEach { free($0) } }
        var pid: pid_t = 0
        let status = ChildSpawn.spawn(&pid, executable.path, &actions, argv, environment)
        close(ends[0])
        guard status == 0 else {
            close(ends[1])
            throw DriverCommandLine.Problem(message: "cannot start \(executable.path) \(command): \(String(cString: strerror(status)))")
        }
        let child = pid
        BlockingThread.start(name: "matrix-reaper") {
            var waitStatus: Int32 = 0
            while waitpid(child, &waitStatus, 0) < 0 && errno == EINTR {}
        }
        return Watchdog(pid: pid, fd: ends[1])
    }
}

/// The runner's end of a ``ContainmentWatchdog``.
package final class Watchdog: Sendable {
    /// The watchdog's process ID.
    package let pid: Int32
    private let fd = Locked<Int32?>(nil)

    init(pid: Int32, fd: Int32) {
        self.pid = pid
        self.fd.withLock { $0 = fd }
    }

    deinit { fd.withLock { if let open = $0 { close(open) } } }

    /// Tells the watchdog the backend's process ID (its process group's).
    package func watch(backend: Int32) {
        send("backend \(backend)\n")
    }

    /// Tells the watchdog that the runner stopped the backend itself, and lets it finish: it removes the folder
    /// (if still there) and exits.
    package func release() {
        send("stopped\n")
        fd.withLock { fd in
            if let open = fd { close(open) }
            fd = nil
        }
    }

    private func send(_ text: String) {
        fd.withLock { fd in
            guard let open = fd else { return }
            let bytes = Array(text.utf8)
            _ = bytes.withUnsafeBytes { write(open, $0.baseAddress, $0.count) }
        }
    }
}
