import Foundation

/// The time source and the waiting used between retries; inject a manual one in tests so that retries and
/// `Retry-After` waits take no real time and token timestamps are known.
public protocol APIClock: Sendable {
    /// The current time (JWT `iat`, and the reference for a `Retry-After` UNIX time).
    func now() -> Date

    /// Waits `seconds` before a retry.
    ///
    /// - Throws: `CancellationError` when the task is cancelled while waiting.
    func sleep(seconds: Double) async throws
}

/// The system clock and `Task.sleep`.
public struct SystemAPIClock: APIClock {
    /// Creates the system clock.
    public init() {}

    /// `Date()`.
    public func now() -> Date { Date() }

    /// `Task.sleep` for `seconds` (negative values do not wait).
    public func sleep(seconds: Double) async throws {
        guard seconds > 0 else { return }
        try await Task.sleep(nanoseconds: UInt64(min(seconds, 86_400) * 1_000_000_000))
    }
}
