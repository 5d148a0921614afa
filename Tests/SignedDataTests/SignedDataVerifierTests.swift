import Foundation
@testable import SignedData
import Signing
@testable import TestSupport
import Testing

/// Apple's library vectors and the negative cases of Apple's verifiers.
@Suite("SignedDataVerifier")
struct SignedDataVerifierTests {
    static let xcodeBundle = "com.example.naturelab.backyardbirds.example"

    func appleTestVerifier(environment: String = "Sandbox", bundleId: String? = "com.example", appAppleId: Int64? = nil) throws -> SignedDataVerifier {
        try SignedDataVerifier(
            rootCertificates: [Fixtures.certificate("test-pki/testCA.der")],
            bundleId: bundleId,
            appAppleId: appAppleId,
            environment: environment,
            now: { Fixtures.fixedNow }
        )
    }

    // MARK: - Apple's mock_signed_data vectors

    @Test("mock transactionInfo verifies under Sandbox, com.example, root testCA")
    func mockTransaction() throws {
        let result = try appleTestVerifier().verifyAndDecodeTransaction(Fixtures.jws("mock_signed_data/transactionInfo"))
        #expect(result.kind == .transaction)
        #expect(result.fields == CheckedFields(signedDate: 1_672_956_154_000, bundleId: "com.example", environment: "Sandbox"))
        #expect(result.isSignatureVerified)
        guard case let .verified(chain, validationDate) = result.signatureCheck else {
            Issue.record("signature was not checked")
            return
        }
        #expect(chain.count == 3)
        #expect(validationDate == Date(timeIntervalSince1970: 1_672_956_154))
        #expect(String(decoding: result.payload, as: UTF8.self) == #"{"environment":"Sandbox","bundleId":"com.example","signedDate":1672956154000}"#)
    }

    @Test("mock renewalInfo verifies, without any bundle id comparison")
    func mockRenewalInfo() throws {
        let jws = try Fixtures.jws("mock_signed_data/renewalInfo")
        let result = try appleTestVerifier().verifyAndDecodeRenewalInfo(jws)
        #expect(result.fields == CheckedFields(signedDate: 1_672_956_154_000, environment: "Sandbox"))
        #expect(try appleTestVerifier(bundleId: "com.other").verifyAndDecodeRenewalInfo(jws).isSignatureVerified)
    }

    @Test("mock testNotification verifies as a TEST notification with app identity from data")
    func mockNotification() throws {
        let result = try appleTestVerifier().verifyAndDecodeNotification(Fixtures.jws("mock_signed_data/testNotification"))
        #expect(result.fields == CheckedFields(
            signedDate: 1_681_314_324_000,
            bundleId: "com.example",
            environment: "Sandbox",
            appAppleId: 1234,
            notificationType: "TEST"
        ))
        #expect(result.isSignatureVerified)
    }

    @Test("mock testNotification fails with INVALID_ENVIRONMENT under a Production verifier")
    func mockNotificationProduction() throws {
        let jws = try Fixtures.jws("mock_signed_data/testNotification")
        let error = #expect(throws: SignedDataError.self) {
            try appleTestVerifier(environment: "Production", appAppleId: 1234).verifyAndDecodeNotification(jws)
        }
        #expect(error?.code == .invalidEnvironment)
        #expect(error?.message.contains("\"Sandbox\"") == true)
    }

    @Test("mock testNotification fails with INVALID_APP_IDENTIFIER under Production when appAppleId is not 1234")
    func mockNotificationWrongAppAppleId() throws {
        let jws = try Fixtures.jws("mock_signed_data/testNotification")
        let error = #expect(throws: SignedDataError.self) {
            try appleTestVerifier(environment: "Production", appAppleId: 1235).verifyAndDecodeNotification(jws)
        }
        #expect(error?.code == .invalidAppIdentifier)
        #expect(error?.message.contains("1235") == true)
    }

    @Test("mock wrongBundleId fails with INVALID_APP_IDENTIFIER")
    func mockWrongBundleId() throws {
        let error = #expect(throws: SignedDataError.self) {
            try appleTestVerifier().verifyAndDecodeNotification(Fixtures.jws("mock_signed_data/wrongBundleId"))
        }
        #expect(error?.code == .invalidAppIdentifier)
        #expect(error?.message.contains("com.example.wrong") == true)
    }

    @Test("mock missingX5CHeaderClaim fails with INVALID_JWT_FORMAT, as Apple's Swift library reports it")
    func mockMissingX5C() throws {
        let error = #expect(throws: SignedDataError.self) {
            try appleTestVerifier().verifyAndDecodeNotification(Fixtures.jws("mock_signed_data/missingX5CHeaderClaim"))
        }
        #expect(error?.code == .invalidJWTFormat)
        #expect(error?.message.contains("x5c") == true)
    }

    @Test("A Production verifier needs an app Apple id")
    func productionNeedsAppAppleId() {
        let error = #expect(throws: SignedDataError.self) { try appleTestVerifier(environment: "Production") }
        #expect(error?.code == .invalidAppAppleId)
    }

    // MARK: - StoreKit Testing in Xcode vectors

    @Test("Xcode transaction decodes under an Xcode verifier without a signature check, keeping fractional ms")
    func xcodeTransaction() throws {
        let result = try appleTestVerifier(environment: "Xcode", bundleId: Self.xcodeBundle)
            .verifyAndDecodeTransaction(Fixtures.jws("xcode/xcode-signed-transaction"))
        #expect(result.fields == CheckedFields(signedDate: 1_697_679_936_056.485, bundleId: Self.xcodeBundle, environment: "Xcode"))
        #expect(!result.isSignatureVerified)
        #expect(result.signatureCheck == .notChecked(environment: "Xcode"))
        #expect(result.signatureCheck.description.contains("NOT checked"))
    }

    @Test("Xcode renewal info and app transaction decode under an Xcode verifier")
    func xcodeRenewalAndAppTransaction() throws {
        let verifier = try appleTestVerifier(environment: "Xcode", bundleId: Self.xcodeBundle)
        let renewal = try verifier.verifyAndDecodeRenewalInfo(Fixtures.jws("xcode/xcode-signed-renewal-info"))
        #expect(renewal.fields == CheckedFields(signedDate: 1_697_679_936_711.0747, environment: "Xcode"))
        let app = try verifier.verifyAndDecodeAppTransaction(Fixtures.jws("xcode/xcode-signed-app-transaction"))
        #expect(app.fields == CheckedFields(signedDate: 1_697_680_122_257.447, bundleId: Self.xcodeBundle, environment: "Xcode"))
        #expect(!app.isSignatureVerified)
    }

    @Test("Xcode data is rejected by a LocalTesting verifier (environment) and a Sandbox verifier (one certificate)")
    func xcodeElsewhere() throws {
        let jws = try Fixtures.jws("xcode/xcode-signed-transaction")
        let local = #expect(throws: SignedDataError.self) {
            try appleTestVerifier(environment: "LocalTesting", bundleId: Self.xcodeBundle).verifyAndDecodeTransaction(jws)
        }
        #expect(local?.code == .invalidEnvironment)
        let sandbox = #expect(throws: SignedDataError.self) {
            try appleTestVerifier(bundleId: Self.xcodeBundle).verifyAndDecodeTransaction(jws)
        }
        #expect(sandbox?.code == .invalidJWTFormat)
        #expect(sandbox?.message.contains("1 certificate") == true)
    }

    @Test("An Xcode verifier still compares the bundle id, and rejects Sandbox data by environment")
    func xcodeVerifierChecksBundleAndEnvironment() throws {
        let wrongBundle = #expect(throws: SignedDataError.self) {
            try appleTestVerifier(environment: "Xcode", bundleId: "com.other").verifyAndDecodeTransaction(Fixtures.jws("xcode/xcode-signed-transaction"))
        }
        #expect(wrongBundle?.code == .invalidAppIdentifier)
        let sandboxData = #expect(throws: SignedDataError.self) {
            try appleTestVerifier(environment: "Xcode").verifyAndDecodeTransaction(Fixtures.jws("mock_signed_data/transactionInfo"))
        }
        #expect(sandboxData?.code == .invalidEnvironment)
    }

    // MARK: - Negative cases built from Apple's test PKI

    /// Signs `payload` with testLeaf.key under a header carrying `x5c` (PEM fixture names) and `alg`.
    func signWithAppleTestKey(payload: [String: Any], x5c: [String], alg: String = "ES256") throws -> String {
        let key = try P256PrivateKey(pemRepresentation: Fixtures.text("test-pki/testLeaf.key"))
        let chain = try x5c.map { "\"\(try Fixtures.certificate($0).base64EncodedDER)\"" }.joined(separator: ",")
        let header = Data("{\"alg\":\"\(alg)\",\"x5c\":[\(chain)]}".utf8)
        return try JWS.sign(payload: Fixtures.json(payload), headerJSON: header, key: key)
    }

    static let goodChain = ["test-pki/testLeaf.pem", "test-pki/testIntermediate.pem", "test-pki/testCA.pem"]
    static var sandboxTransaction: [String: Any] { ["bundleId": "com.example", "environment": "Sandbox", "signedDate": 1_700_000_000_000] }

    @Test("A fresh JWS signed with Apple's test leaf key verifies (round trip with the Apple test PKI)")
    func appleTestPKIRoundTrip() throws {
        let jws = try signWithAppleTestKey(payload: Self.sandboxTransaction, x5c: Self.goodChain)
        let result = try appleTestVerifier().verifyAndDecodeTransaction(jws)
        #expect(result.fields.signedDate == 1_700_000_000_000)
        #expect(result.isSignatureVerified)
        let pki = try Fixtures.appleTestPKI()
        let viaSigner = try pki.sign(payload: Fixtures.json(Self.sandboxTransaction))
        #expect(try appleTestVerifier().verifyAndDecodeTransaction(viaSigner).isSignatureVerified)
    }

    @Test("A leaf with the wrong marker OID (1.2.840.113635.100.6.11.2) fails verification")
    func invalidLeafOID() throws {
        let jws = try signWithAppleTestKey(payload: Self.sandboxTransaction, x5c: ["test-pki/testInvalidOIDLeaf.pem", "test-pki/testIntermediate.pem", "test-pki/testCA.pem"])
        let error = #expect(throws: SignedDataError.self) { try appleTestVerifier().verifyAndDecodeTransaction(jws) }
        #expect(error?.code == .verificationFailure)
        #expect(error?.message.contains("leaf") == true)
        #expect(error?.message.contains("1.2.840.113635.100.6.11.1") == true)
    }

    @Test("An intermediate with the wrong marker OID (1.2.840.113635.100.6.2.2) fails verification")
    func invalidIntermediateOID() throws {
        let jws = try signWithAppleTestKey(payload: Self.sandboxTransaction, x5c: ["test-pki/testInvalidIntermediateLeaf.pem", "test-pki/testInvalidOIDIntermediate.pem", "test-pki/testCA.pem"])
        let error = #expect(throws: SignedDataError.self) { try appleTestVerifier().verifyAndDecodeTransaction(jws) }
        #expect(error?.code == .verificationFailure)
        #expect(error?.message.contains("intermediate") == true)
        #expect(error?.message.contains("1.2.840.113635.100.6.2.1") == true)
    }

    @Test("Two x5c certificates are INVALID_JWT_FORMAT")
    func twoCertificates() throws {
        let jws = try signWithAppleTestKey(payload: Self.sandboxTransaction, x5c: Array(Self.goodChain.prefix(2)))
        let error = #expect(throws: SignedDataError.self) { try appleTestVerifier().verifyAndDecodeTransaction(jws) }
        #expect(error?.code == .invalidJWTFormat)
        #expect(error?.message.contains("2 certificate") == true)
    }

    @Test("A header alg other than ES256 is INVALID_JWT_FORMAT even when the signature is valid", arguments: ["ES384", "HS256", "none", "es256"])
    func nonES256(alg: String) throws {
        let jws = try signWithAppleTestKey(payload: Self.sandboxTransaction, x5c: Self.goodChain, alg: alg)
        let error = #expect(throws: SignedDataError.self) { try appleTestVerifier().verifyAndDecodeTransaction(jws) }
        #expect(error?.code == .invalidJWTFormat)
        #expect(error?.message.contains(alg) == true)
    }

    @Test("A transaction for another bundle id is INVALID_APP_IDENTIFIER")
    func wrongBundleTransaction() throws {
        let jws = try signWithAppleTestKey(payload: ["bundleId": "com.other", "environment": "Sandbox", "signedDate": 1_700_000_000_000], x5c: Self.goodChain)
        let error = #expect(throws: SignedDataError.self) { try appleTestVerifier().verifyAndDecodeTransaction(jws) }
        #expect(error?.code == .invalidAppIdentifier)
        #expect(try appleTestVerifier(bundleId: nil).verifyAndDecodeTransaction(jws).fields.bundleId == "com.other")
    }

    @Test("A Production transaction under a Sandbox verifier is INVALID_ENVIRONMENT")
    func wrongEnvironmentTransaction() throws {
        let jws = try signWithAppleTestKey(payload: ["bundleId": "com.example", "environment": "Production", "signedDate": 1_700_000_000_000], x5c: Self.goodChain)
        let error = #expect(throws: SignedDataError.self) { try appleTestVerifier().verifyAndDecodeTransaction(jws) }
        #expect(error?.code == .invalidEnvironment)
    }

    @Test("A tampered payload fails verification")
    func tamperedPayload() throws {
        let jws = try signWithAppleTestKey(payload: Self.sandboxTransaction, x5c: Self.goodChain)
        var parts = jws.split(separator: ".").map(String.init)
        parts[1] = Base64URL.encode(try Fixtures.json(["bundleId": "com.example", "environment": "Sandbox", "signedDate": 1_700_000_000_001]))
        let error = #expect(throws: SignedDataError.self) { try appleTestVerifier().verifyAndDecodeTransaction(parts.joined(separator: ".")) }
        #expect(error?.code == .verificationFailure)
        #expect(error?.message.contains("signature") == true)
    }

    @Test("A tampered signature fails verification, and so does a DER signature")
    func tamperedSignature() throws {
        let jws = try signWithAppleTestKey(payload: Self.sandboxTransaction, x5c: Self.goodChain)
        var parts = jws.split(separator: ".").map(String.init)
        var signature = try #require(Base64URL.decode(parts[2]))
        signature[10] ^= 0x80
        parts[2] = Base64URL.encode(signature)
        let flipped = #expect(throws: SignedDataError.self) { try appleTestVerifier().verifyAndDecodeTransaction(parts.joined(separator: ".")) }
        #expect(flipped?.code == .verificationFailure)

        signature[10] ^= 0x80
        parts[2] = Base64URL.encode(try ECDSASignature.der(fromRaw: signature))
        let der = #expect(throws: SignedDataError.self) { try appleTestVerifier().verifyAndDecodeTransaction(parts.joined(separator: ".")) }
        #expect(der?.code == .verificationFailure)
        #expect(der?.message.contains("64 bytes") == true)
    }

    @Test("Data from Apple's test PKI is rejected by verifiers trusting another root")
    func wrongRoot() throws {
        let jws = try Fixtures.jws("mock_signed_data/transactionInfo")
        for root in [try AppleRootCertificates.rootCAG3, try SimulatorPKI.default.root] {
            let verifier = try SignedDataVerifier(rootCertificates: [root], bundleId: "com.example", appAppleId: nil, environment: "Sandbox", now: { Fixtures.fixedNow })
            let error = #expect(throws: SignedDataError.self) { try verifier.verifyAndDecodeTransaction(jws) }
            #expect(error?.code == .verificationFailure)
            #expect(error?.message.contains("local issuer") == true)
        }
    }

    @Test("The chain is evaluated at signedDate: a date after the leaf expired fails, the current time is not used")
    func leafExpiredAtSignedDate() throws {
        let leaf = try Fixtures.certificate("test-pki/testLeaf.pem")
        let afterExpiry = (leaf.notAfter.timeIntervalSince1970 + 86_400) * 1000
        let jws = try signWithAppleTestKey(payload: ["bundleId": "com.example", "environment": "Sandbox", "signedDate": afterExpiry], x5c: Self.goodChain)
        let error = #expect(throws: SignedDataError.self) { try appleTestVerifier().verifyAndDecodeTransaction(jws) }
        #expect(error?.code == .verificationFailure)
        #expect(error?.message.contains("expired") == true)
    }

    @Test("Without signedDate the verifier's clock is used")
    func clockFallback() throws {
        let jws = try signWithAppleTestKey(payload: ["bundleId": "com.example", "environment": "Sandbox"], x5c: Self.goodChain)
        let result = try appleTestVerifier().verifyAndDecodeTransaction(jws)
        guard case let .verified(_, validationDate) = result.signatureCheck else {
            Issue.record("signature was not checked")
            return
        }
        #expect(validationDate == Fixtures.fixedNow)
        let late = try SignedDataVerifier(
            rootCertificates: [Fixtures.certificate("test-pki/testCA.der")],
            bundleId: "com.example", appAppleId: nil, environment: "Sandbox",
            now: { Date(timeIntervalSince1970: 2_100_000_000) }
        )
        let error = #expect(throws: SignedDataError.self) { try late.verifyAndDecodeTransaction(jws) }
        #expect(error?.code == .verificationFailure)
    }

    @Test("An x5c leaf that is not a certificate is INVALID_CERTIFICATE; a garbage root entry is ignored as by Apple")
    func badCertificates() throws {
        let pki = try Fixtures.appleTestPKI()
        let payload = try Fixtures.json(Self.sandboxTransaction)
        let badLeaf = Data("{\"alg\":\"ES256\",\"x5c\":[\"AAAA\",\"\(pki.intermediate.base64EncodedDER)\",\"\(pki.root.base64EncodedDER)\"]}".utf8)
        let error = #expect(throws: SignedDataError.self) {
            try appleTestVerifier().verifyAndDecodeTransaction(JWS.sign(payload: payload, headerJSON: badLeaf, key: pki.leafKey))
        }
        #expect(error?.code == .invalidCertificate)
        let badRoot = Data("{\"alg\":\"ES256\",\"x5c\":[\"\(pki.leaf.base64EncodedDER)\",\"\(pki.intermediate.base64EncodedDER)\",\"garbage\"]}".utf8)
        #expect(try appleTestVerifier().verifyAndDecodeTransaction(JWS.sign(payload: payload, headerJSON: badRoot, key: pki.leafKey)).isSignatureVerified)
    }

    @Test("A payload whose checked members have the wrong JSON type is INVALID_JWT_FORMAT", arguments: [
        #"[]"#, #"{"signedDate":"1700000000000"}"#, #"{"bundleId":7}"#, #"not json"#,
    ])
    func badPayload(_ payload: String) throws {
        let pki = try Fixtures.appleTestPKI()
        let jws = try pki.sign(payload: Data(payload.utf8))
        let error = #expect(throws: SignedDataError.self) { try appleTestVerifier().verifyAndDecodeTransaction(jws) }
        #expect(error?.code == .invalidJWTFormat)
    }

    // MARK: - Robustness

    @Test("Garbage and mutated JWS strings never crash and only produce SignedDataError")
    func fuzz() throws {
        let verifier = try appleTestVerifier()
        let xcode = try appleTestVerifier(environment: "Xcode")
        let seeds = try ["mock_signed_data/transactionInfo", "mock_signed_data/testNotification", "xcode/xcode-signed-app-transaction"].map(Fixtures.jws)
        var generator = SplitMix64(seed: 0x5EED)
        let alphabet = Array("ABCxyz019-_.=+/ é\n{}\"")
        var outcomes: [SignedDataError.Code: Int] = [:]
        var accepted = 0
        for round in 0 ..< 1_500 {
            var characters = Array(seeds[round % seeds.count])
            switch round % 4 {
            case 0: characters[Int(generator.next() % UInt64(characters.count))] = alphabet[Int(generator.next() % UInt64(alphabet.count))]
            case 1: characters = Array(characters.prefix(Int(generator.next() % UInt64(characters.count))))
            case 2: characters.insert(alphabet[Int(generator.next() % UInt64(alphabet.count))], at: Int(generator.next() % UInt64(characters.count)))
            default: characters = (0 ..< Int(generator.next() % 200)).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }
            }
            let input = String(characters)
            for kind in VerifiedSignedData.Kind.allCases {
                for candidate in [verifier, xcode] {
                    do {
                        _ = try candidate.verifyAndDecode(input, kind: kind)
                        accepted += 1
                    } catch let error as SignedDataError {
                        outcomes[error.code, default: 0] += 1
                    }
                }
            }
        }
        #expect(Set(outcomes.keys).isSubset(of: [.invalidJWTFormat, .invalidCertificate, .verificationFailure, .invalidAppIdentifier, .invalidEnvironment]))
        #expect(outcomes[.invalidJWTFormat, default: 0] > 1_000)
        #expect(outcomes[.verificationFailure, default: 0] > 0)
        #expect(accepted < 1_500 * 8 / 10)
    }
}
