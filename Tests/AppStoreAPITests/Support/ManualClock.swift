@testable import AppStoreAPI
import Foundation
@testable import SignedData
import Signing
import Threading

/// A clock that moves only when the client sleeps: each sleep is recorded and advances `now` at once.
final class ManualClock: APIClock, Sendable {
    private struct State {
        var current: Date
        var recorded: [Double] = []
    }

    private let state: Locked<State>

    init(start: Date = APIFixtures.start) {
        state = Locked(State(current: start))
    }

    func now() -> Date {
        state.withLock { $0.current }
    }

    func sleep(seconds: Double) async throws {
        try Task.checkCancellation()
        state.withLock { state in
            state.recorded.append(seconds)
            state.current = state.current.addingTimeInterval(max(0, seconds))
        }
    }

    /// Every wait requested, in seconds.
    var sleeps: [Double] {
        state.withLock { $0.recorded }
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
