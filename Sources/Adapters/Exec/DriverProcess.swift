import DriverKit
import Foundation

/// A running driver: the child process in its own process group, a writer to its stdin, the lines of its
/// stdout, and the tail of its stderr.
///
/// Foundation's `Process` reaps the child; ``kill()`` signals the whole process group so that whatever the
/// driver started goes too.
final class DriverProcess: Sendable {
    let process: Process
    /// The driver's process ID, which is also its process group ID (Foundation starts each child in a new group).
    let pid: Int32
    let input: LineWriter
    let output: AsyncStream<LineEvent>
    let log: OutputTail
    private let termination: TerminationBox

    private init(process: Process, input: LineWriter, output: AsyncStream<LineEvent>, log: OutputTail, termination: TerminationBox) {
        self.process = process
        self.pid = process.processIdentifier
        self.input = input
        self.output = output
        self.log = log
        self.termination = termination
    }

    /// Starts `arguments` (the executable first) with the environment of this process.
    ///
    /// - Parameter logLine: receives each line the driver writes on stderr.
    /// - Throws: ``DriverCommandLine/Problem`` when the executable cannot be found or started.
    static func launch(_ arguments: [String], logLine: (@Sendable (String) -> Void)?) throws(DriverCommandLine.Problem) -> DriverProcess {
        guard let name = arguments.first else { throw DriverCommandLine.Problem(message: "the driver command is empty") }
        let executable = try DriverCommandLine.executable(name)
        let process = Process()
        process.executableURL = executable
        process.arguments = Array(arguments.dropFirst())
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        let termination = TerminationBox()
        process.terminationHandler = { finished in
            termination.set(finished.terminationReason == .uncaughtSignal
                ? "was killed by signal \(finished.terminationStatus)" : "exited with status \(finished.terminationStatus)")
        }
        let writer = LineWriter(stdin.fileHandleForWriting)
        do {
            try process.run()
        } catch {
            throw DriverCommandLine.Problem(message: "cannot start the driver \(executable.path): \(error.localizedDescription)")
        }
        let outputHandle = stdout.fileHandleForReading
        let output = LineReader.lines(from: outputHandle.fileDescriptor) { try? outputHandle.close() }
        let log = OutputTail()
        let errorHandle = stderr.fileHandleForReading
        let errorLines = LineReader.lines(from: errorHandle.fileDescriptor, maximumLength: 4096) { try? errorHandle.close() }
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
        return DriverProcess(process: process, input: writer, output: output, log: log, termination: termination)
    }

    /// How the process ended ("exited with status 3", "was killed by signal 9"), or `nil` while it runs.
    var exitDescription: String? { termination.value }

    /// Waits up to `limit` for the process to end; returns how it ended, or `nil` if it still runs.
    func waitForExit(upTo limit: Duration) async -> String? {
        let deadline = ContinuousClock.now + limit
        while true {
            if let value = termination.value { return value }
            if ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Sends `SIGKILL` to the driver's process group.
    func kill() {
        signalGroup(SIGKILL)
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

/// How the process ended, set once by the termination handler.
final class TerminationBox: Sendable {
    private let state = Locked<String?>(nil)

    func set(_ value: String) { state.withLock { $0 = value } }
    var value: String? { state.withLock { $0 } }
}

/// A value behind a lock.
// @unchecked Sendable: every access to `value` holds `lock`.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
