import Foundation
@testable import SignedData
import Signing
@testable import TestSupport
import Testing

@Suite("SHA-256, P-256 keys and ES256 signatures")
struct CryptoTests {
    @Test("SHA-256 matches the FIPS 180-2 test vectors")
    func sha256Vectors() {
        #expect(SHA256.hexHash(Data("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hexHash(Data()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hash(Data("abc".utf8)).count == 32)
    }

    @Test("A SEC1 EC PRIVATE KEY and a PKCS#8 PRIVATE KEY both load as P-256 keys")
    func loadsBothPEMForms() throws {
        let sec1 = try P256PrivateKey(pemRepresentation: Fixtures.text("test-pki/testLeaf.key"))
        let pkcs8 = try P256PrivateKey(pemRepresentation: Fixtures.text("test-pki/testSigningKey.p8"))
        #expect(try sec1.publicKey.derRepresentation().count == 91)
        #expect(try pkcs8.publicKey.derRepresentation().count == 91)
        #expect(try sec1.publicKey.derRepresentation() != pkcs8.publicKey.derRepresentation())
    }

    @Test("The SEC1 test key is the key of testLeaf.pem")
    func sec1KeyMatchesCertificate() throws {
        let key = try P256PrivateKey(pemRepresentation: Fixtures.text("test-pki/testLeaf.key"))
        let leaf = try Fixtures.certificate("test-pki/testLeaf.pem")
        #expect(try key.publicKey.derRepresentation() == leaf.publicKey().derRepresentation())
    }

    @Test("A key exported as PKCS#8 PEM loads back as the same key")
    func pemRoundTrip() throws {
        let key = try P256PrivateKey.generate()
        let pem = try key.pemRepresentation()
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let reloaded = try P256PrivateKey(pemRepresentation: pem)
        #expect(try reloaded.publicKey.derRepresentation() == key.publicKey.derRepresentation())
    }

    @Test("An encrypted private key is rejected without prompting for a passphrase")
    func rejectsEncryptedKey() {
        let encrypted = """
        -----BEGIN ENCRYPTED PRIVATE KEY-----
        MIHsMFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEFDDAcBAiB0PKZo5IqcQICCAAw
        DAYIKoZIhvcNAgkFADAdBglghkgBZQMEASoEEKWtrgesJPT09imUXzXRDiQEgZAO
        6a0ZiiKfXJyIhyR5FjYDoSv4tuC/P+Az+sEfLdY7fJdNPPkdCyi+YQe1PTeIlNbS
        7swl+jNCBmqK9jx6qoh9cpW2IAVjRmYOT3IQIPD8mhvZmJ/A2ubfeoLTLY2h4kUm
        EgwnrLwikM8IQUL1YW/kjOAVLtahyOSe0e3Q2K+veUceO4TkLta9Mrwb/EsstU0=
        -----END ENCRYPTED PRIVATE KEY-----
        """
        let error = #expect(throws: SignedDataError.self) { try P256PrivateKey(pemRepresentation: encrypted) }
        #expect(error?.code == .invalidKey)
    }

    @Test("Text that is not a key, and a key on another curve, are rejected as invalid keys")
    func rejectsNonKeys() throws {
        let garbage = #expect(throws: SignedDataError.self) {
            try P256PrivateKey(pemRepresentation: "not a key")
        }
        #expect(garbage?.code == .invalidKey)
        let g3 = try Fixtures.certificate("apple-roots/AppleRootCA-G3.cer")
        let wrongCurve = #expect(throws: SignedDataError.self) { try g3.publicKey() }
        #expect(wrongCurve?.code == .invalidKey)
        #expect(wrongCurve?.message.contains("secp384r1") == true)
    }

    @Test("ES256 signatures are 64 raw bytes and verify only for the signed message and key")
    func signAndVerify() throws {
        let key = try P256PrivateKey.generate()
        let other = try P256PrivateKey.generate()
        let message = Data("header.payload".utf8)
        let signature = try key.signature(for: message)
        #expect(signature.count == 64)
        #expect(key.publicKey.isValidSignature(signature, for: message))
        #expect(!key.publicKey.isValidSignature(signature, for: Data("header.payloaD".utf8)))
        #expect(!other.publicKey.isValidSignature(signature, for: message))
        var flipped = signature
        flipped[40] ^= 0x01
        #expect(!key.publicKey.isValidSignature(flipped, for: message))
    }

    @Test("Signatures of the same message differ (random nonce) yet all verify")
    func signaturesAreRandomised() throws {
        let key = try P256PrivateKey.generate()
        let message = Data("same".utf8)
        let first = try key.signature(for: message)
        let second = try key.signature(for: message)
        #expect(first != second)
        #expect(key.publicKey.isValidSignature(first, for: message))
        #expect(key.publicKey.isValidSignature(second, for: message))
    }

    @Test("Raw r‖s converts to DER and back unchanged")
    func rawDERRoundTrip() throws {
        let key = try P256PrivateKey.generate()
        let raw = try key.signature(for: Data("x".utf8))
        let der = try ECDSASignature.der(fromRaw: raw)
        #expect(der.first == 0x30)
        #expect((8 ... 72).contains(der.count))
        #expect(try ECDSASignature.raw(fromDER: der) == raw)
    }

    @Test("Small r and s are left-padded to 32 bytes each")
    func padsShortIntegers() throws {
        // SEQUENCE { INTEGER 1, INTEGER 2 }
        let raw = try ECDSASignature.raw(fromDER: [0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x02])
        #expect(raw.count == 64)
        #expect(raw[31] == 1 && raw[63] == 2)
        #expect(raw[0 ..< 31].allSatisfy { $0 == 0 } && raw[32 ..< 63].allSatisfy { $0 == 0 })
    }

    @Test("A DER signature is not accepted where raw r‖s is expected")
    func rejectsDERWhereRawExpected() throws {
        let key = try P256PrivateKey.generate()
        let message = Data("payload".utf8)
        // Find a DER signature of the maximal 72 bytes (both r and s with a leading zero byte).
        var der: [UInt8] = []
        for _ in 0 ..< 400 where der.count != 72 {
            der = try ECDSASignature.der(fromRaw: key.signature(for: message))
        }
        try #require(der.count == 72)
        #expect(!key.publicKey.isValidSignature(der, for: message))
        let error = #expect(throws: SignedDataError.self) {
            try key.publicKey.verifySignature(der, for: message)
        }
        #expect(error?.code == .invalidSignature)
        #expect(error?.message.contains("got 72") == true)
        let tooShort = #expect(throws: SignedDataError.self) { try ECDSASignature.der(fromRaw: [UInt8](repeating: 1, count: 63)) }
        #expect(tooShort?.code == .invalidSignature)
    }

    @Test("DER with trailing bytes or an over-long integer is not a P-256 signature")
    func rejectsMalformedDER() {
        let trailing = #expect(throws: SignedDataError.self) {
            try ECDSASignature.raw(fromDER: [0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x02, 0x00])
        }
        #expect(trailing?.code == .invalidSignature)
        let long: [UInt8] = [0x30, 0x26, 0x02, 0x21] + [0x7f] + [UInt8](repeating: 0x11, count: 32) + [0x02, 0x01, 0x01]
        let overLong = #expect(throws: SignedDataError.self) { try ECDSASignature.raw(fromDER: long) }
        #expect(overLong?.code == .invalidSignature)
        let garbage = #expect(throws: SignedDataError.self) { try ECDSASignature.raw(fromDER: [0xde, 0xad]) }
        #expect(garbage?.code == .invalidSignature)
    }

    @Test("One key signs concurrently from many tasks")
    func concurrentSigning() async throws {
        let key = try P256PrivateKey.generate()
        let publicKey = key.publicKey
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0 ..< 64 {
                group.addTask {
                    let message = Data("message \(index)".utf8)
                    return publicKey.isValidSignature(try key.signature(for: message), for: message)
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 64)
        #expect(results.allSatisfy { $0 })
    }
}
