import Foundation
@testable import SignedData
import Signing
@testable import TestSupport
import Testing

@Suite("JWS compact serialization")
struct JWSTests {
    @Test("Signing writes an ES256 x5c header with padded standard base64 and unpadded base64url parts")
    func signFormat() throws {
        let pki = try SimulatorPKI.default
        let payload = Data(#"{"bundleId":"com.example","signedDate":1767225600000}"#.utf8)
        let jws = try JWS.sign(payload: payload, x5c: pki.chain, key: pki.leafKey)
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(parts.count == 3)
        #expect(!jws.contains("=") && !jws.contains("+") && !jws.contains("/"))
        let header = try #require(Base64URL.decode(parts[0]))
        let expected = "{\"alg\":\"ES256\",\"x5c\":[\(pki.chain.map { "\"\($0.base64EncodedDER)\"" }.joined(separator: ","))]}"
        #expect(String(decoding: header, as: UTF8.self) == expected)
        #expect(pki.chain.allSatisfy { $0.base64EncodedDER.count % 4 == 0 })
        #expect(Base64URL.decode(parts[1]) == payload)
        #expect(Base64URL.decode(parts[2])?.count == 64)
        #expect(try pki.leaf.publicKey().isValidSignature(Base64URL.decode(parts[2]) ?? Data(), for: Data("\(parts[0]).\(parts[1])".utf8)))
    }

    /// The signer hashes the header once and each payload on its own; the signature must still cover the whole
    /// signing input `header.payload` (RFC 7515 §5.1), for payloads of every size, from one signer used many times.
    @Test("A signer's signatures cover the header and the payload, for payloads of any length, signed one after another")
    func signerCoversWholeInput() throws {
        let pki = try SimulatorPKI.default
        let signer = JWSSigner(key: pki.leafKey, x5c: pki.chain)
        let publicKey = try pki.leaf.publicKey()
        for length in [0, 1, 2, 3, 55, 56, 63, 64, 65, 5_000] {
            let payload = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
            let parts = try signer.sign(payload: payload).split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            try #require(parts.count == 3)
            #expect(parts[0] == signer.encodedHeader)
            let signature = Base64URL.decode(parts[2]) ?? Data()
            #expect(try publicKey.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8)), "payload of \(length) bytes")
            #expect(try !publicKey.isValidSignature(signature, for: Data("\(parts[0])x.\(parts[1])".utf8)))
            #expect(try !publicKey.isValidSignature(signature, for: Data(".\(parts[1])".utf8)))
        }
    }

    @Test("Decoding returns header fields, payload, signature and signing input; unknown header members are ignored")
    func decodeParts() throws {
        let jws = try Fixtures.jws("xcode/xcode-signed-transaction")
        let decoded = try JWS.decode(jws)
        #expect(decoded.header.alg == "ES256")
        #expect(decoded.header.kid == "Apple_Xcode_Key")
        #expect(decoded.header.typ == "JWT")
        #expect(decoded.header.x5c?.count == 1)
        #expect(decoded.signature.count == 64)
        #expect(decoded.signingInput == jws.split(separator: ".").prefix(2).joined(separator: "."))
        #expect(String(decoding: decoded.payload, as: UTF8.self).contains("\"signedDate\":1697679936056.485"))
        let certificates = try decoded.header.certificates()
        #expect(certificates.first?.subjectSummary.contains("StoreKit") == true)

        let extra = try JWS.sign(payload: Data("{}".utf8), headerJSON: Data(#"{"alg":"ES256","crit":["x"],"nested":{"a":[1,2]}}"#.utf8), key: SimulatorPKI.default.leafKey)
        #expect(try JWS.decode(extra).header == JWSHeader(alg: "ES256"))
    }

    @Test("base64url round-trips every length and rejects characters outside its alphabet")
    func base64URL() {
        for length in 0 ..< 70 {
            let bytes = (0 ..< length).map { UInt8(truncatingIfNeeded: $0 * 37 + 250) }
            let encoded = Base64URL.encode(bytes)
            // RFC 4648 §5: standard base64 with `-` and `_` for `+` and `/`, without padding.
            let standard = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(encoded == standard)
            #expect(Base64URL.encode(Data(bytes)) == standard)
            #expect(!encoded.contains("="))
            #expect(Base64URL.decode(encoded) == Data(bytes))
        }
        #expect(Base64URL.decode("-_8") == Data([0xfb, 0xff]))
        #expect(Base64URL.decode("+/8") == nil)
        #expect(Base64URL.decode("ab c") == nil)
        #expect(Base64URL.decode("abcde") == nil)
        // One spelling per value: no padding, no set bits past the data (RFC 7515 §2, RFC 4648 §3.5).
        #expect(Base64URL.decode("YQ") == Data("a".utf8))
        #expect(Base64URL.decode("YQ==") == nil)
        #expect(Base64URL.decode("YR") == nil)
        #expect(Base64URL.decode("YWI") == Data("ab".utf8))
        #expect(Base64URL.decode("YWJ") == nil)
    }

    @Test("Malformed compact JWS is rejected with INVALID_JWT_FORMAT", arguments: [
        "",
        ".",
        "..",
        "a.b",
        "a.b.c.d",
        "e30.e30",
        "!!!.e30.AA",
        "e30.!!!.AA",
        "e30.e30.!!!",
        "W10.e30.AA",          // header is an array
        "bnVsbA.e30.AA",       // header is null
        "eyJhbGciOjF9.e30.AA", // alg is a number
        "eyJ4NWMiOiJhIn0.e30.AA", // x5c is a string
        "eyJhbGci.e30.AA",     // truncated JSON
        "e30.e30.AA\n",        // trailing newline
        "é.é.é",
        String(repeating: ".", count: 10_000),
    ])
    func rejectsMalformed(_ input: String) {
        let error = #expect(throws: SignedDataError.self) { try JWS.decode(input) }
        #expect(error?.code == .invalidJWTFormat)
    }

    @Test("An x5c entry that is not base64 DER is an invalid certificate")
    func badCertificateEntry() throws {
        let header = JWSHeader(alg: "ES256", x5c: ["not base64!", "AAAA"])
        let error = #expect(throws: SignedDataError.self) { try header.certificates() }
        #expect(error?.code == .invalidCertificate)
        #expect(error?.message.contains("x5c[0]") == true)
        let second = #expect(throws: SignedDataError.self) {
            try JWSHeader(x5c: [SimulatorPKI.default.leaf.base64EncodedDER, "AAAA"]).certificates()
        }
        #expect(second?.message.contains("x5c[1]") == true)
    }
}
