@testable import AppStoreAPI
import Foundation
@testable import SignedData
import Signing
import Testing

/// Tokens as Apple's "Generating JSON Web Tokens for API requests" (App Store Server API) and "Generating
/// Tokens for API Requests" (App Store Connect API) describe them.
@Suite("API tokens")
struct APITokenFactoryTests {
    let issuedAt = Date(timeIntervalSince1970: 1_623_085_200.75)

    func decode(_ token: String) throws -> DecodedToken {
        try DecodedToken(authorization: "Bearer " + token)
    }

    @Test("An App Store Server API token has Apple's header, every claim, bid, and a 20-minute lifetime")
    func serverToken() throws {
        let key = try APIFixtures.apiKey()
        let factory = APITokenFactory(issuerId: APIFixtures.issuerId, key: key, audience: .appStoreServerAPI(bundleId: "com.example"))
        let token = try decode(factory.token(issuedAt: issuedAt))
        #expect(token.header.count == 3)
        #expect(token.header["alg"] as? String == "ES256")
        #expect(token.header["kid"] as? String == APIFixtures.keyId)
        #expect(token.header["typ"] as? String == "JWT")
        #expect(Set(token.claims.keys) == ["iss", "iat", "exp", "aud", "bid"])
        #expect(token.claims["iss"] as? String == APIFixtures.issuerId)
        #expect(token.int("iat") == 1_623_085_200)
        #expect(token.int("exp") == Int64(1_623_085_200 + 1200))
        #expect(token.claims["aud"] as? String == "appstoreconnect-v1")
        #expect(token.claims["bid"] as? String == "com.example")
        #expect(token.decoded.signature.count == 64)
        #expect(token.verifies(with: key.privateKey.publicKey))
    }

    @Test("An App Store Connect API token has no bid and expires within Apple's 20 minutes")
    func connectToken() throws {
        let key = try APIFixtures.apiKey()
        let token = try decode(APITokenFactory(issuerId: APIFixtures.issuerId, key: key, audience: .appStoreConnectAPI).token(issuedAt: issuedAt))
        #expect(Set(token.claims.keys) == ["iss", "iat", "exp", "aud"])
        let lifetime = try #require(token.int("exp")) - (try #require(token.int("iat")))
        #expect(lifetime == 900)
        #expect(lifetime <= 20 * 60)
        #expect(token.verifies(with: key.privateKey.publicKey))
    }

    @Test("Server API tokens stay within Apple's 60-minute limit", arguments: [APITokenFactory.serverAPILifetime, APITokenFactory.connectAPILifetime])
    func lifetimesWithinLimits(lifetime: TimeInterval) {
        #expect(lifetime > 0)
        #expect(lifetime <= 60 * 60)
    }

    @Test("A token signed by another key does not verify with this key")
    func otherKeyDoesNotVerify() throws {
        let factory = APITokenFactory(issuerId: APIFixtures.issuerId, key: try APIFixtures.apiKey(), audience: .appStoreConnectAPI)
        let token = try decode(factory.token(issuedAt: issuedAt))
        #expect(!token.verifies(with: try P256PrivateKey.generate().publicKey))
    }

    @Test("Each moment gives its own token with its own iat")
    func freshTokens() throws {
        let factory = APITokenFactory(issuerId: APIFixtures.issuerId, key: try APIFixtures.apiKey(), audience: .appStoreConnectAPI)
        let first = try factory.token(issuedAt: issuedAt)
        let later = try factory.token(issuedAt: issuedAt.addingTimeInterval(61))
        #expect(first != later)
        #expect(try decode(later).int("iat") == 1_623_085_261)
    }

    @Test("A key id with JSON-special characters is escaped in the header, not injected")
    func keyIdEscaped() throws {
        let key = APIKey(keyId: #"AB"CD"#, privateKey: try APIFixtures.apiKey().privateKey, source: "test")
        let token = try decode(APITokenFactory(issuerId: "i", key: key, audience: .appStoreConnectAPI).token(issuedAt: issuedAt))
        #expect(token.header["kid"] as? String == #"AB"CD"#)
        #expect(token.header.count == 3)
    }
}
