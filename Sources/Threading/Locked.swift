import Foundation

/// A value behind a lock: the one way shared mutable state is kept in this package.
///
/// It stands in for the standard library's `Mutex` (Synchronization), which needs iOS 18 and macOS 15, so that the
/// library products can be used by apps that support iOS 16 and macOS 13. The calling pattern is `Mutex`'s:
/// `state.withLock { $0.count += 1 }`. The lock is not recursive: calling `withLock` again from inside `body` on
/// the same value deadlocks, as it would with `Mutex`.
///
/// `@unchecked Sendable`: every access to `value` happens inside `withLock`, under `lock`; values go in and out
/// as `sending`, so the compiler still checks that no reference to the protected state escapes unguarded.
public final class Locked<Value: ~Copyable>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    /// Protects `value`.
    public init(_ value: consuming sending Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value and returns what it returns.
    ///
    /// - Throws: what `body` throws; the lock is released either way.
    public func withLock<Result: ~Copyable, Failure: Error>(_ body: (inout sending Value) throws(Failure) -> sending Result) throws(Failure) -> sending Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
