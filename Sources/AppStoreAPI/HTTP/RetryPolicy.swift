import Foundation

/// When and how long to wait before sending a request again.
///
/// Retried: HTTP 429 (honouring `Retry-After`), HTTP 5xx, the App Store Server API codes Apple documents as
/// retryable (4040002, 4040004, 4040006, 5000001), and — for requests that are safe to repeat — timeouts and
/// connection failures. Each wait is exponential, `baseDelay × 2^(retry − 1)` capped at `maximumDelay`, with
/// "equal jitter": half of it fixed, the other half random, so that clients that failed together do not retry
/// together. A `Retry-After` time replaces the computed wait; one further away than
/// ``maximumRetryAfter`` is not waited for: the call fails with the time in the error.
///
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/identifying-rate-limits
public struct RetryPolicy: Sendable {
    /// Requests sent at most, the first included (1 = never retry).
    public var maximumAttempts: Int
    /// The first wait, in seconds.
    public var baseDelay: Double
    /// The longest computed wait, in seconds.
    public var maximumDelay: Double
    /// The longest `Retry-After` wait honoured, in seconds.
    public var maximumRetryAfter: Double
    /// A random number in `0..<1` for the jitter; fixed in tests.
    public var random: @Sendable () -> Double

    /// Four attempts, 0.5 s doubling to at most 8 s, `Retry-After` honoured up to 60 s.
    public static let standard = RetryPolicy()

    /// One attempt: never retry.
    public static let none = RetryPolicy(maximumAttempts: 1)

    /// Creates a policy.
    public init(maximumAttempts: Int = 4, baseDelay: Double = 0.5, maximumDelay: Double = 8, maximumRetryAfter: Double = 60,
                random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.maximumAttempts = max(1, maximumAttempts)
        self.baseDelay = max(0, baseDelay)
        self.maximumDelay = max(0, maximumDelay)
        self.maximumRetryAfter = max(0, maximumRetryAfter)
        self.random = random
    }

    /// The wait before retry number `retry` (1 for the first retry), in seconds.
    public func backoff(retry: Int) -> Double {
        let exponent = Double(max(0, min(retry - 1, 30)))
        let ceiling = min(maximumDelay, baseDelay * pow(2, exponent))
        let fraction = min(max(random(), 0), 1)
        return ceiling / 2 + ceiling / 2 * fraction
    }

    /// The moment a `Retry-After` header value names.
    ///
    /// Apple's App Store Server API sends a UNIX time in milliseconds. The standard HTTP forms are accepted as
    /// well: a number below 10^11 that is a UNIX time in seconds (above 10^9) or otherwise a delay in seconds,
    /// and an HTTP date.
    ///
    /// - Parameters:
    ///   - value: The header value.
    ///   - now: The current time, for a delay in seconds.
    /// - Returns: The time, or `nil` when the value is none of these forms.
    public static func retryAfterDate(_ value: String, now: Date) -> Date? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if let number = Double(text), number.isFinite, number >= 0 {
            if number >= 1e11 { return Date(timeIntervalSince1970: number / 1000) }
            if number >= 1e9 { return Date(timeIntervalSince1970: number) }
            return now.addingTimeInterval(number)
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text)
    }
}
