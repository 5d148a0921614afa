import Foundation
@testable import MatrixModel
@testable import SignedData
import Signing
@testable import TestSupport
import Testing

/// Builds the JWS inputs of `scripts/interop-apple-library.sh` and checks that this verifier reaches the
/// outcome recorded for Apple's Python library on each.
///
/// Set `SIGNED_DATA_INTEROP_VECTORS=/path/vectors.json` to also write them:
///
///     SIGNED_DATA_INTEROP_VECTORS=/tmp/vectors.json swift test --filter InteropVectorTests
///     scripts/interop-apple-library.sh /tmp/vectors.json
@Suite("Interop vectors for Apple's App Store Server Library")
struct InteropVectorTests {
    /// One JWS and the verifier configuration to check it with.
    struct Vector: Encodable {
        var name: String
        var kind: String
        var jws: String
        var environment: String
        var bundleId: String
        var appAppleId: Int64?
        /// Apple's Python library outcome: `OK` or a `VerificationStatus` name.
        var expectedStatus: String
        /// This verifier's outcome: `OK` or a ``SignedDataError/Code`` raw value.
        var storeKitMatrixCode: String
    }

    struct VectorFile: Encodable {
        var description: String
        /// Trust anchors, standard base64 DER.
        var rootCertificates: [String]
        var vectors: [Vector]
    }

    static let bundleId = "com.example.storekitmatrix"
    static let signedDate = 1_767_225_600_000.0 // 2026-01-01T00:00:00Z

    static func vectors() throws -> [Vector] {
        let pki = try SimulatorPKI.default
        func sign(_ payload: [String: Any]) throws -> String { try pki.sign(payload: Fixtures.json(payload)) }
        let transaction: [String: Any] = [
            "bundleId": bundleId, "environment": "Sandbox", "signedDate": signedDate,
            "transactionId": "2000000000000001", "originalTransactionId": "2000000000000001",
            "productId": "com.example.monthly", "type": "Auto-Renewable Subscription",
        ]
        let renewal: [String: Any] = [
            "environment": "Sandbox", "signedDate": signedDate, "autoRenewStatus": 1,
            "originalTransactionId": "2000000000000001", "productId": "com.example.monthly",
        ]
        let notification: [String: Any] = [
            "notificationType": "SUBSCRIBED", "subtype": "INITIAL_BUY", "version": "2.0",
            "notificationUUID": "3c4a6a2b-1f51-4a6e-9d55-5f1f0f0c0b01", "signedDate": signedDate,
            "data": ["bundleId": bundleId, "environment": "Sandbox", "appAppleId": 1234, "status": 1],
        ]
        let appTransaction: [String: Any] = [
            "bundleId": bundleId, "receiptType": "Sandbox", "receiptCreationDate": signedDate,
            "appAppleId": 1234, "applicationVersion": "1", "originalApplicationVersion": "1",
        ]
        var fractional = transaction
        fractional["signedDate"] = signedDate + 0.7297
        var otherBundle = transaction
        otherBundle["bundleId"] = "com.example.other"
        var production = transaction
        production["environment"] = "Production"
        var expired = transaction
        expired["signedDate"] = 1_546_300_800_000.0 // 2019, before the simulator leaf is valid (it never expires before 9999)

        let good = try sign(transaction)
        var parts = good.split(separator: ".").map(String.init)
        var signature = Base64URL.decode(parts[2]) ?? Data()
        signature[5] ^= 0x01
        parts[2] = Base64URL.encode(signature)
        let tamperedSignature = parts.joined(separator: ".")

        let twoCertificates = try JWS.sign(payload: Fixtures.json(transaction), x5c: [pki.leaf, pki.intermediate], key: pki.leafKey)
        let chain = pki.chain.map { "\"\($0.base64EncodedDER)\"" }.joined(separator: ",")
        let es384 = try JWS.sign(payload: Fixtures.json(transaction), headerJSON: Data("{\"alg\":\"ES384\",\"x5c\":[\(chain)]}".utf8), key: pki.leafKey)

        func vector(_ name: String, _ kind: VerifiedSignedData.Kind, _ jws: String, environment: String = "Sandbox", appAppleId: Int64? = nil, apple: String = "OK", ours: String? = nil) -> Vector {
            Vector(name: name, kind: kind.rawValue, jws: jws, environment: environment, bundleId: bundleId, appAppleId: appAppleId, expectedStatus: apple, storeKitMatrixCode: ours ?? apple)
        }
        return [
            vector("transaction", .transaction, good),
            vector("transaction with fractional signedDate", .transaction, try sign(fractional)),
            vector("renewal info", .renewalInfo, try sign(renewal)),
            vector("notification", .notification, try sign(notification)),
            vector("app transaction", .appTransaction, try sign(appTransaction)),
            vector("notification, Production verifier, other appAppleId", .notification, try sign(notification), environment: "Production", appAppleId: 99, apple: "INVALID_APP_IDENTIFIER"),
            vector("transaction for another bundle", .transaction, try sign(otherBundle), apple: "INVALID_APP_IDENTIFIER"),
            vector("Production transaction, Sandbox verifier", .transaction, try sign(production), apple: "INVALID_ENVIRONMENT"),
            vector("tampered signature", .transaction, tamperedSignature, apple: "VERIFICATION_FAILURE"),
            vector("signedDate before the leaf is valid", .transaction, try sign(expired), apple: "VERIFICATION_FAILURE"),
            vector("two x5c certificates", .transaction, twoCertificates, apple: "INVALID_CHAIN_LENGTH", ours: "INVALID_JWT_FORMAT"),
            vector("alg ES384", .transaction, es384, apple: "VERIFICATION_FAILURE", ours: "INVALID_JWT_FORMAT"),
        ]
    }

    @Test("Every interop vector gets the recorded outcome from this verifier (in strict mode, like Apple's Python library)")
    func vectorsVerifyHere() throws {
        let pki = try SimulatorPKI.default
        let vectors = try Self.vectors()
        #expect(vectors.count == 12)
        for vector in vectors {
            let kind = try #require(VerifiedSignedData.Kind(rawValue: vector.kind))
            let verifier = try SignedDataVerifier(
                rootCertificates: [pki.root], bundleId: vector.bundleId, appAppleId: vector.appAppleId,
                environment: vector.environment, strictCertificateChecks: true
            )
            let outcome: String
            do {
                let result = try verifier.verifyAndDecode(vector.jws, kind: kind)
                outcome = result.isSignatureVerified ? "OK" : "NOT_CHECKED"
            } catch let error as SignedDataError {
                outcome = error.code.rawValue
            }
            #expect(outcome == vector.storeKitMatrixCode, "\(vector.name)")
        }

        if let path = ProcessInfo.processInfo.environment["SIGNED_DATA_INTEROP_VECTORS"], !path.isEmpty {
            let file = VectorFile(
                description: "JWS signed with the StoreKit Matrix simulator PKI (not Apple); verify with rootCertificates, online checks off.",
                rootCertificates: [pki.root.base64EncodedDER],
                vectors: vectors
            )
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            try encoder.encode(file).write(to: URL(fileURLWithPath: path))
            #expect(FileManager.default.fileExists(atPath: path))
        }
    }
}
