import Foundation
@testable import SignedData
import Signing
import Testing

@Suite("Payload kind detection")
struct KindDetectionTests {
    @Test("The kind follows the members of the payload", arguments: [
        (#"{"notificationType":"SUBSCRIBED","data":{}}"#, VerifiedSignedData.Kind.notification),
        (#"{"receiptType":"Sandbox","bundleId":"b"}"#, .appTransaction),
        (#"{"autoRenewStatus":1,"productId":"p"}"#, .renewalInfo),
        (#"{"renewalDate":1767225600000,"originalTransactionId":"1"}"#, .renewalInfo),
        (#"{"autoRenewStatus":1,"transactionId":"1"}"#, .transaction),
        (#"{"transactionId":"1","productId":"p"}"#, .transaction),
        (#"{}"#, .transaction),
    ])
    func detects(payload: String, kind: VerifiedSignedData.Kind) {
        #expect(VerifiedSignedData.Kind.detect(payload: Data(payload.utf8)) == kind)
    }

    @Test("A payload that is not a JSON object has no kind", arguments: ["[]", "7", "not json", ""])
    func notAnObject(payload: String) {
        #expect(VerifiedSignedData.Kind.detect(payload: Data(payload.utf8)) == nil)
    }

    @Test("decodePayload returns the payload alone and rejects what decode rejects")
    func decodePayload() throws {
        let pki = try SimulatorPKI.default
        let payload = Data(#"{"transactionId":"1"}"#.utf8)
        let jws = try pki.sign(payload: payload)
        #expect(try JWS.decodePayload(jws) == payload)
        #expect(try JWS.decode(jws).signingInput == jws.split(separator: ".").prefix(2).joined(separator: "."))
        for bad in ["a.b", "a.b.c.d", jws + ".x", "e30.!!.e30"] {
            let error = #expect(throws: SignedDataError.self) { try JWS.decodePayload(bad) }
            #expect(error?.code == .invalidJWTFormat)
        }
        let four = #expect(throws: SignedDataError.self) { try JWS.decode("a.b.c.d.e") }
        #expect(four?.message.contains("found 5") == true)
    }
}
