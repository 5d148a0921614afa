import Foundation
@testable import AppStoreAPI
@testable import SignedData

/// A clock that moves only when the client sleeps: each sleep is recorded and advances `now` at once.
final class ManualClock: APIClock, @unchecked Sendable {
    // @unchecked Sendable: `current` and `recorded` are only touched under `lock`.
    private let lock = NSLock()
    private var current: Date
    private var recorded: [Double] = []

    init(start: Date = APIFixtures.start) {
        current = start
    }

    func now() -> Date {
        lock.withLock { current }
    }

    func sleep(seconds: Double) async throws {
        try Task.checkCancellation()
        lock.withLock {
            recorded.append(seconds)
            current = current.addingTimeInterval(max(0, seconds))
        }
    }

    /// Every wait requested, in seconds.
    var sleeps: [Double] {
        lock.withLock { recorded }
    }
}

/// A decoded API token from a recorded request.
struct DecodedToken {
    var header: [String: Any]
    var claims: [String: Any]
    var decoded: DecodedJWS

    /// Decodes the `Authorization: Bearer …` token.
    init(authorization: String?) throws {
        guard let authorization, authorization.hasPrefix("Bearer ") else { throw APIFixtures.FixtureError("no bearer token") }
        decoded = try JWS.decode(String(authorization.dropFirst("Bearer ".count)))
        header = try JSONSerialization.jsonObject(with: decoded.headerJSON) as? [String: Any] ?? [:]
        claims = try JSONSerialization.jsonObject(with: decoded.payload) as? [String: Any] ?? [:]
    }

    func verifies(with key: P256PublicKey) -> Bool {
        key.isValidSignature(decoded.signature, for: Array(decoded.signingInput.utf8))
    }

    func int(_ name: String) -> Int64? {
        (claims[name] as? NSNumber)?.int64Value
    }
}
