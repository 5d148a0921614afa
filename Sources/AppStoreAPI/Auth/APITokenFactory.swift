import Foundation
import SignedData
import Signing

/// Makes the ES256-signed JSON Web Tokens that authorize requests to Apple's APIs.
///
/// Header `{"alg":"ES256","kid":KEY_ID,"typ":"JWT"}`; claims `iss` (issuer id), `iat` and `exp` (UNIX time in
/// whole seconds), `aud` `appstoreconnect-v1`, and for the App Store Server API `bid` (bundle id). The
/// signature is raw r‖s, base64url, as JWS requires.
///
/// A token is made for every request, as Apple asks ("Generate a new signed JWT for each new request"), so a
/// token never outlives a long `Retry-After` wait. Lifetimes stay inside Apple's limits: App Store Server API
/// tokens are invalid when `exp` is more than 60 minutes after `iat` (``serverAPILifetime`` is 20 minutes);
/// App Store Connect API tokens are invalid when they expire more than 20 minutes in the future
/// (``connectAPILifetime`` is 15 minutes, leaving room for clock skew).
///
/// Tokens are credentials: never log them. ``Redaction`` scrubs anything shaped like one.
///
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/generating-json-web-tokens-for-api-requests
/// and https://developer.apple.com/documentation/appstoreconnectapi/generating-tokens-for-api-requests
public struct APITokenFactory: Sendable {
    /// Which API a token is for; decides `bid` and the lifetime.
    public enum Audience: Sendable, Hashable {
        /// The App Store Server API: claims include `bid`.
        case appStoreServerAPI(bundleId: String)
        /// The App Store Connect API: no `bid`.
        case appStoreConnectAPI
    }

    /// The `aud` claim of both APIs.
    public static let audienceClaim = "appstoreconnect-v1"
    /// 20 minutes, in seconds: App Store Server API tokens (Apple's limit is 60 minutes after `iat`).
    public static let serverAPILifetime: TimeInterval = 20 * 60
    /// 15 minutes, in seconds: App Store Connect API tokens (Apple's limit is 20 minutes in the future).
    public static let connectAPILifetime: TimeInterval = 15 * 60

    /// The key that signs.
    public let key: APIKey
    /// Who the tokens are for.
    public let audience: Audience
    private let issuerId: String
    private let signer: JWSSigner

    /// A factory for `audience` that signs with `key` on behalf of `issuerId`.
    public init(issuerId: String, key: APIKey, audience: Audience) {
        self.issuerId = issuerId
        self.key = key
        self.audience = audience
        // Key ids are short ASCII identifiers; encode through JSONEncoder all the same so that any character is escaped.
        let header = Header(alg: "ES256", kid: key.keyId, typ: "JWT")
        let headerJSON = (try? Self.encoder.encode(header)) ?? Data(#"{"alg":"ES256","typ":"JWT"}"#.utf8)
        signer = JWSSigner(key: key.privateKey, headerJSON: headerJSON)
    }

    /// Seconds between `iat` and `exp`.
    public var lifetime: TimeInterval {
        switch audience {
        case .appStoreServerAPI: Self.serverAPILifetime
        case .appStoreConnectAPI: Self.connectAPILifetime
        }
    }

    /// A signed token issued at `date`.
    ///
    /// - Returns: The compact JWS `header.claims.signature`.
    /// - Throws: ``AppStoreAPIError`` (`.credentials`) if signing fails, which happens only when OpenSSL fails.
    public func token(issuedAt date: Date) throws(AppStoreAPIError) -> String {
        let issuedAt = Int64(date.timeIntervalSince1970.rounded(.down))
        var claims = Claims(iss: issuerId, iat: issuedAt, exp: issuedAt + Int64(lifetime), aud: Self.audienceClaim)
        if case .appStoreServerAPI(let bundleId) = audience { claims.bid = bundleId }
        do {
            return try signer.sign(payload: Self.encoder.encode(claims))
        } catch {
            throw AppStoreAPIError(.credentials, "could not sign an API token with \(key); the key may be damaged, download a new one")
        }
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    private struct Header: Encodable {
        var alg: String
        var kid: String
        var typ: String
    }

    private struct Claims: Encodable {
        var iss: String
        var iat: Int64
        var exp: Int64
        var aud: String
        var bid: String?
    }
}
