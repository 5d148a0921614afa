import Dispatch
import Foundation
import Threading

/// Holds SIGINT (Ctrl-C), SIGTERM and SIGHUP (a closed terminal or ssh session) for the whole of a command: a
/// signal cancels the work in progress, which stops at the next step boundary, and the command still writes
/// what it has (the evidence's reports and final `run.json`) before it exits 130. A signal while the matrix is
/// loading, or while the run ends, is remembered the same way.
final class SignalTrap: Sendable {
    /// What the trap keeps, behind one lock. No code of ours runs in signal context (a dispatch source turns
    /// each signal into an ordinary call on a queue), so nothing here is C state; the lock is never held while
    /// work is cancelled.
    private struct State {
        var received: Int32?
        var cancelWork: (@Sendable () -> Void)?
        var sources: [any DispatchSourceSignal] = []
        /// The signals held; one the process started with ignored (`nohup` ignores SIGHUP, a shell script's
        /// background job SIGINT) stays ignored, as its starter asked.
        var held: [Int32] = []
    }

    private let state = Locked(State())
    private static let signals = [SIGINT, SIGTERM, SIGHUP]

    /// Starts holding the signals.
    init() {
        // The sources are made inside the lock, and their handlers capture only this `Sendable` closure, so
        // that the sources (not `Sendable`) belong to `state` from the start. A handler that runs before the
        // loop ends waits for the lock, briefly.
        let receive: @Sendable (Int32) -> Void = { [weak self] number in self?.receive(number) }
        state.withLock { state in
            for number in Self.signals {
                let previous = signal(number, SIG_IGN)
                if unsafeBitCast(previous, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) { continue }
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { receive(number) }
                source.resume()
                state.held.append(number)
                state.sources.append(source)
            }
        }
    }

    /// The signal received so far, if any.
    var signalReceived: Int32? { state.withLock { $0.received } }

    private func receive(_ number: Int32) {
        let cancel = state.withLock { state -> (@Sendable () -> Void)? in
            state.received = state.received ?? number
            return state.cancelWork
        }
        cancel?()
    }

    /// Calls `body` on every signal from now on (at once when one came already): for synchronous work that
    /// stops when asked, such as unpacking an archive.
    func whenSignalled(_ body: @escaping @Sendable () -> Void) {
        let already = state.withLock { state -> Bool in
            state.cancelWork = body
            return state.received != nil
        }
        if already { body() }
    }

    /// Runs `body`, cancelled by a signal (also one that came before it started).
    func run<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value) async -> Outcome<Value> {
        let task = Task { try await body() }
        let alreadySignalled = state.withLock { state -> Bool in
            state.cancelWork = { task.cancel() }
            return state.received != nil
        }
        if alreadySignalled { task.cancel() }
        defer { state.withLock { $0.cancelWork = nil } }
        do {
            return .finished(try await task.value)
        } catch {
            return .failed(error)
        }
    }

    /// Stops holding the signals: their default actions are back.
    func release() {
        // The sources are cancelled under the lock (they are not `Sendable`); `cancel()` only marks them, it
        // neither waits for a handler running now nor calls one, so no handler can wait for the lock here.
        let held = state.withLock { state -> [Int32] in
            for source in state.sources { source.cancel() }
            state.sources = []
            defer { state.held = [] }
            return state.held
        }
        for number in held { signal(number, SIG_DFL) }
    }

    enum Outcome<Value: Sendable>: Sendable {
        case finished(Value)
        case failed(any Error)
    }
}
