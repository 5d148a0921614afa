import EvidenceStore
import Foundation
import Threading

/// A request, from a signal handler, to stop packing, unpacking or verifying: the child process at work (`tar`,
/// `gzip`) is ended at once, and the work in progress checks ``isInterrupted`` and stops with its temporary
/// files removed.
///
/// The command line interrupts it on SIGINT, SIGTERM and SIGHUP; library callers that never interrupt pass
/// ``never``.
public final class Interruption: Sendable {
    private struct State {
        var interrupted = false
        var children: Set<Int32> = []
    }

    private let state = Locked(State())

    public init() {}

    /// An interruption that never comes.
    public static var never: Interruption { Interruption() }

    /// Whether ``interrupt()`` was called.
    public var isInterrupted: Bool { state.withLock { $0.interrupted } }

    /// Asks the work to stop, and ends every child process running for it (SIGKILL: a `tar` or `gzip` has nothing
    /// to save, and one that is stopped ends too).
    public func interrupt() {
        let children = state.withLock { state -> Set<Int32> in
            state.interrupted = true
            return state.children
        }
        for pid in children { _ = kill(pid, SIGKILL) }
    }

    /// Runs `body` with `pid` recorded as a child to end on interruption (ended at once when it came already).
    func watching<Value>(_ pid: Int32, _ body: () throws -> Value) rethrows -> Value {
        let already = state.withLock { state -> Bool in
            state.children.insert(pid)
            return state.interrupted
        }
        if already { _ = kill(pid, SIGKILL) }
        defer { _ = state.withLock { $0.children.remove(pid) } }
        return try body()
    }
}
