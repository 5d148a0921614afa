import Foundation
@testable import SignedData
import Signing
@testable import TestSupport
import Testing

/// Only the verifier's caller turns the signature check off (Apple's `SignedDataVerifier` for `.xcode` and
/// `.localTesting`); `signatureRequired` keeps it for every environment.
@Suite("SignedDataVerifier: signatureRequired")
struct SignatureRequiredTests {
    static let xcodeBundle = "com.example.naturelab.backyardbirds.example"

    func verifier(environment: String, signatureRequired: Bool, bundleId: String? = nil) throws -> SignedDataVerifier {
        try SignedDataVerifier(rootCertificates: [Fixtures.certificate("test-pki/testCA.der")], bundleId: bundleId, appAppleId: nil,
                               environment: environment, signatureRequired: signatureRequired, now: { Fixtures.fixedNow })
    }

    /// What anyone can write: `alg` none, no signature, an `x5c` that is no certificate.
    static func forged(environment: String) throws -> String {
        let header = Base64URL.encode(Data(#"{"alg":"none","x5c":["garbage"]}"#.utf8))
        let payload = Base64URL.encode(try Fixtures.json(["bundleId": "com.example", "environment": environment, "signedDate": 1_700_000_000_000,
                                                          "transactionId": "1", "productId": "p", "price": 0]))
        return header + "." + payload + "."
    }

    @Test("A forged alg-none JWS naming Xcode or LocalTesting is decoded only by a verifier created for that environment",
          arguments: ["Xcode", "LocalTesting"])
    func forgedUnsignedData(environment: String) throws {
        let jws = try Self.forged(environment: environment)
        // Apple's semantics: the caller asked for unsigned data.
        #expect(try verifier(environment: environment, signatureRequired: false).verifyAndDecodeTransaction(jws).signatureCheck
                == .notChecked(environment: environment))
        let required = #expect(throws: SignedDataError.self) {
            try verifier(environment: environment, signatureRequired: true).verifyAndDecodeTransaction(jws)
        }
        #expect(required?.code == .invalidJWTFormat, "\(String(describing: required))")
        let sandbox = #expect(throws: SignedDataError.self) {
            try verifier(environment: "Sandbox", signatureRequired: false).verifyAndDecodeTransaction(jws)
        }
        #expect(sandbox?.code == .invalidJWTFormat)
    }

    @Test("Xcode's own data (one self-signed certificate) fails when the signature is required")
    func xcodeFixture() throws {
        let jws = try Fixtures.jws("xcode/xcode-signed-transaction")
        let error = #expect(throws: SignedDataError.self) {
            try verifier(environment: "Xcode", signatureRequired: true, bundleId: Self.xcodeBundle).verifyAndDecodeTransaction(jws)
        }
        #expect(error?.message.contains("1 certificate") == true)
    }

    @Test("Xcode-environment data signed by a trusted chain verifies in full when the signature is required")
    func signedXcodeData() throws {
        let pki = try Fixtures.appleTestPKI()
        let jws = try pki.sign(payload: Fixtures.json(["bundleId": "com.example", "environment": "Xcode", "signedDate": 1_700_000_000_000]))
        let result = try verifier(environment: "Xcode", signatureRequired: true, bundleId: "com.example").verifyAndDecodeTransaction(jws)
        #expect(result.isSignatureVerified)
        let sandboxData = try pki.sign(payload: Fixtures.json(["bundleId": "com.example", "environment": "Sandbox", "signedDate": 1_700_000_000_000]))
        let error = #expect(throws: SignedDataError.self) {
            try verifier(environment: "Xcode", signatureRequired: true).verifyAndDecodeTransaction(sandboxData)
        }
        #expect(error?.code == .invalidEnvironment)
    }
}
