import Foundation
@testable import SignedData
import Signing
@testable import TestSupport
import Testing

/// A header or payload that names a member twice means one thing to one reader and another to the next
/// (RFC 8259 §4): it is refused, even with a signature that verifies.
@Suite("Signed data: a member named twice is refused")
struct DuplicateMemberTests {
    static let chain = ["test-pki/testLeaf.pem", "test-pki/testIntermediate.pem", "test-pki/testCA.pem"]

    func verifier() throws -> SignedDataVerifier {
        try SignedDataVerifier(rootCertificates: [Fixtures.certificate("test-pki/testCA.der")], bundleId: "com.example", appAppleId: nil,
                               environment: "Sandbox", now: { Fixtures.fixedNow })
    }

    /// Signs `payload` verbatim with Apple's test leaf key under `header`, where `X5C` stands for the good chain.
    func sign(header: String, payload: String) throws -> String {
        let key = try P256PrivateKey(pemRepresentation: Fixtures.text("test-pki/testLeaf.key"))
        let x5c = try Self.chain.map { "\"\(try Fixtures.certificate($0).base64EncodedDER)\"" }.joined(separator: ",")
        return try JWS.sign(payload: Data(payload.utf8), headerJSON: Data(header.replacingOccurrences(of: "X5C", with: x5c).utf8), key: key)
    }

    static let payload = #"{"bundleId":"com.example","environment":"Sandbox","signedDate":1700000000000}"#

    @Test("The same header without the repeat verifies: the signature is good")
    func control() throws {
        #expect(try verifier().verifyAndDecodeTransaction(sign(header: #"{"alg":"ES256","x5c":[X5C]}"#, payload: Self.payload)).isSignatureVerified)
    }

    @Test("A header that repeats alg or x5c is INVALID_JWT_FORMAT naming the member and its column", arguments: [
        (#"{"alg":"ES256","alg":"none","x5c":[X5C]}"#, #"line 1, column 16: duplicate key "alg""#),
        (#"{"alg":"none","x5c":[X5C],"alg":"ES256"}"#, #"duplicate key "alg""#),
        (#"{"alg":"ES256","x5c":[X5C],"x5c":[]}"#, #"duplicate key "x5c""#),
    ])
    func header(header: String, words: String) throws {
        let jws = try sign(header: header, payload: Self.payload)
        let error = #expect(throws: SignedDataError.self) { try verifier().verifyAndDecodeTransaction(jws) }
        #expect(error?.code == .invalidJWTFormat)
        #expect(error?.message.hasPrefix("The JWS header repeats a member, which readers resolve differently: ") == true, "\(String(describing: error))")
        #expect(error?.message.contains(words) == true, "\(String(describing: error))")
        #expect(throws: SignedDataError.self) { try JWS.decode(jws) }
    }

    @Test("A payload that repeats a checked or unchecked member is INVALID_JWT_FORMAT, at any depth", arguments: [
        (#"{"bundleId":"com.example","environment":"Production","environment":"Sandbox","signedDate":1700000000000}"#, "transaction",
         #"duplicate key "environment""#),
        (#"{"bundleId":"com.example","environment":"Sandbox","signedDate":1700000000000,"price":0,"price":9990}"#, "transaction",
         #"duplicate key "price""#),
        (#"{"notificationType":"TEST","signedDate":1700000000000,"data":{"bundleId":"com.other","bundleId":"com.example","environment":"Sandbox"}}"#,
         "notification", #"duplicate key "bundleId": each key may appear once in an object (at /data/bundleId)"#),
    ])
    func payload(payload: String, kind: String, words: String) throws {
        let jws = try sign(header: #"{"alg":"ES256","x5c":[X5C]}"#, payload: payload)
        let error = #expect(throws: SignedDataError.self) {
            try verifier().verifyAndDecode(jws, kind: try #require(VerifiedSignedData.Kind(rawValue: kind)))
        }
        #expect(error?.code == .invalidJWTFormat)
        #expect(error?.message.contains(words) == true, "\(String(describing: error))")
        #expect(VerifiedSignedData.Kind.detect(payload: Data(payload.utf8)) == nil)
    }
}
