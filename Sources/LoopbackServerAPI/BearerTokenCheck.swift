import Foundation
import SignedData
import Signing

/// Who may call the loopback App Store Server API: the key id, issuer id and bundle id a team configures, and the
/// public half of its private key. Requests carry `Authorization: Bearer JWT`, checked as Apple checks them.
///
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/generating-json-web-tokens-for-api-requests
public struct ServerAPICredentials: Sendable {
    /// The `kid` a token's header must name.
    public var keyId: String
    /// The `iss` a token must carry.
    public var issuerId: String
    /// The `bid` a token must carry: the matrix's `app.bundleId`.
    public var bundleId: String
    /// Verifies the token's ES256 signature.
    public var publicKey: P256PublicKey

    public init(keyId: String, issuerId: String, bundleId: String, publicKey: P256PublicKey) {
        self.keyId = keyId
        self.issuerId = issuerId
        self.bundleId = bundleId
        self.publicKey = publicKey
    }
}

/// Checks an App Store Server API bearer token: header `alg` ES256, `kid` the configured key id, `typ` JWT;
/// claims `iss`, `aud` `appstoreconnect-v1`, `bid` and `exp`, where `exp` is in the future and at most 60 minutes
/// after `iat` ("Tokens that expire more than 60 minutes after the time in iat are not valid"), and `iat` not in
/// the future (a minute of clock skew is allowed; Apple states no tolerance, this is a choice). Apple's Python and
/// Node libraries send no `iat` and Apple accepts their tokens: without one, `exp` is held to 60 minutes from now.
///
/// Times are UNIX epoch seconds: one before 1970 is refused, and nothing read from a token takes part in
/// arithmetic that could overflow. The reason a token is refused goes to the client in the 401's body, so it
/// never names what the server is configured with (the key id, the issuer id, the bundle id): a client that
/// does not hold them learns nothing of them.
///
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/generating-json-web-tokens-for-api-requests
struct BearerTokenCheck: Sendable {
    let credentials: ServerAPICredentials
    /// Seconds since 1970, now. Tokens are made from the wall clock by the backend, so they are checked against it.
    let now: @Sendable () -> Int64

    static let audience = "appstoreconnect-v1"
    static let maximumLifetime: Int64 = 3600
    static let skew: Int64 = 60
    /// A token is a few hundred bytes; anything longer is not one.
    static let maximumLength = 8192

    private struct Claims: Decodable {
        var iss: String?
        var iat: Int64?
        var exp: Int64?
        var aud: String?
        var bid: String?
    }

    /// Untrusted text from a token, for a message: at most 40 characters, control characters escaped.
    static func shown(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars.prefix(40) {
            result += scalar.value < 0x20 || scalar.value == 0x7f ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
        }
        return text.unicodeScalars.count > 40 ? result + "…" : result
    }

    /// `nil` when the request may proceed, else why it gets 401.
    func problem(authorization: String?) -> String? {
        guard let authorization else { return "the request has no Authorization header; send Authorization: Bearer JWT" }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].caseInsensitiveCompare("Bearer") == .orderedSame else {
            return "the Authorization header is not Bearer JWT"
        }
        let token = String(parts[1]).trimmingCharacters(in: .whitespaces)
        guard token.utf8.count <= Self.maximumLength else { return "the bearer token is longer than \(Self.maximumLength) bytes" }
        let decoded: DecodedJWS
        do {
            decoded = try JWS.decode(token)
        } catch {
            return "the bearer token is not a compact JWS: \(error)"
        }
        guard decoded.header.alg == "ES256" else { return "the token's alg is \(Self.shown(decoded.header.alg ?? "missing")), not ES256" }
        guard decoded.header.kid == credentials.keyId else {
            return decoded.header.kid == nil ? "the token's header has no kid" : "the token's kid is not the key id this server accepts"
        }
        if let typ = decoded.header.typ, typ != "JWT" { return "the token's typ is \(Self.shown(typ)), not JWT" }
        guard credentials.publicKey.isValidSignature(decoded.signature, for: Array(decoded.signingInput.utf8)) else {
            return "the token's signature does not verify with the key this server accepts"
        }
        guard let claims = try? JSONDecoder().decode(Claims.self, from: decoded.payload) else {
            return "the token's claims are not a JSON object with iss, iat, exp, aud and bid"
        }
        guard claims.iss == credentials.issuerId else { return "the token's iss is not the issuer id this server accepts" }
        guard claims.aud == Self.audience else { return "the token's aud is not \(Self.audience)" }
        guard claims.bid == credentials.bundleId else { return "the token's bid is not the bundle id of the app this server answers for" }
        guard let exp = claims.exp else { return "the token has no exp" }
        if let iat = claims.iat, iat < 0 { return "the token's iat is before 1970" }
        let now = now()
        guard exp > now else { return "the token expired (exp \(exp), now \(now))" }
        // Apple's own libraries send no iat (Python's sets exp 5 minutes ahead): then exp is held to 60 minutes from now.
        // exp > now ≥ 0 and iat ≥ 0 here, so exp - iat cannot overflow; it is checked all the same.
        let (lifetime, overflow) = exp.subtractingReportingOverflow(claims.iat ?? now)
        guard !overflow, lifetime <= Self.maximumLifetime else { return "the token's exp is more than 60 minutes after its iat (or now)" }
        if let iat = claims.iat, iat > now.addingReportingOverflow(Self.skew).partialValue { return "the token's iat is in the future" }
        return nil
    }
}
