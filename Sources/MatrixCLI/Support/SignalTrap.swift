import Dispatch
import Foundation

/// Holds SIGINT (Ctrl-C), SIGTERM and SIGHUP (a closed terminal or ssh session) for the whole of a command: a
/// signal cancels the work in progress, which stops at the next step boundary, and the command still writes
/// what it has (the evidence's reports and final `run.json`) before it exits 130. A signal while the matrix is
/// loading, or while the run ends, is remembered the same way.
final class SignalTrap: @unchecked Sendable {
    // @unchecked Sendable: `received` and `task` are only touched under `lock`; the sources are set up once.
    private let lock = NSLock()
    private var received: Int32?
    private var task: Task<Void, Never>?
    private var cancelWork: (@Sendable () -> Void)?
    private var sources: [any DispatchSourceSignal] = []
    private static let signals = [SIGINT, SIGTERM, SIGHUP]

    /// The signals held; one the process started with ignored (`nohup` ignores SIGHUP, a shell script's
    /// background job SIGINT) stays ignored, as its starter asked.
    private var held: [Int32] = []

    /// Starts holding the signals.
    init() {
        for number in Self.signals {
            let previous = signal(number, SIG_IGN)
            if unsafeBitCast(previous, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) { continue }
            held.append(number)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in self?.receive(number) }
            source.resume()
            sources.append(source)
        }
    }

    /// The signal received so far, if any.
    var signalReceived: Int32? { lock.withLock { received } }

    private func receive(_ number: Int32) {
        let cancel = lock.withLock { () -> (@Sendable () -> Void)? in
            received = received ?? number
            return cancelWork
        }
        cancel?()
    }

    /// Calls `body` on every signal from now on (at once when one came already): for synchronous work that
    /// stops when asked, such as unpacking an archive.
    func whenSignalled(_ body: @escaping @Sendable () -> Void) {
        let already = lock.withLock { () -> Bool in
            cancelWork = body
            return received != nil
        }
        if already { body() }
    }

    /// Runs `body`, cancelled by a signal (also one that came before it started).
    func run<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value) async -> Outcome<Value> {
        let task = Task { try await body() }
        let alreadySignalled = lock.withLock { () -> Bool in
            cancelWork = { task.cancel() }
            return received != nil
        }
        if alreadySignalled { task.cancel() }
        defer { lock.withLock { cancelWork = nil } }
        do {
            return .finished(try await task.value)
        } catch {
            return .failed(error)
        }
    }

    /// Stops holding the signals: their default actions are back.
    func release() {
        for source in sources { source.cancel() }
        sources = []
        for number in held { signal(number, SIG_DFL) }
        held = []
    }

    enum Outcome<Value: Sendable>: Sendable {
        case finished(Value)
        case failed(any Error)
    }
}
