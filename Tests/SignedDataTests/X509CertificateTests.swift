import Foundation
@testable import SignedData
import Signing
@testable import TestSupport
import Testing

@Suite("X.509 certificates and chains")
struct X509CertificateTests {
    @Test("The embedded Apple Root CA - G3 is Apple's root with the published fingerprint")
    func appleRootG3() throws {
        let g3 = try AppleRootCertificates.rootCAG3
        #expect(g3.sha256Fingerprint == "63:34:3A:BF:B8:9A:6A:03:EB:B5:7E:9B:3F:5F:A7:BE:7C:4F:5C:75:6F:30:17:B3:A8:C4:88:C3:65:3E:91:79")
        #expect(g3.derRepresentation == [UInt8](try Fixtures.data("apple-roots/AppleRootCA-G3.cer")))
        // RFC 2253 lists the most specific name first; G3 encodes CN first, so C comes first here.
        #expect(g3.subjectSummary == "C=US,O=Apple Inc.,OU=Apple Certification Authority,CN=Apple Root CA - G3")
        #expect(g3.issuerSummary == g3.subjectSummary)
        #expect(g3.serialNumberHex == "2dc5fc88d2c54b95")
        #expect(g3.publicKeySummary == "EC secp384r1")
        #expect(g3.notBefore == Date(timeIntervalSince1970: 1_398_881_946)) // 2014-04-30T18:19:06Z
        #expect(g3.notAfter == Date(timeIntervalSince1970: 2_187_800_346)) // 2039-04-30T18:19:06Z
    }

    @Test("Apple's WWDR G6 intermediate chains to Apple Root CA - G3 and carries the intermediate marker")
    func appleWWDRChainsToG3() throws {
        let wwdr = try Fixtures.certificate("apple-roots/AppleWWDRCAG6.cer")
        let g3 = try AppleRootCertificates.rootCAG3
        let chain = try X509Certificate.verifyChain(leaf: wwdr, intermediates: [], roots: [g3], at: Fixtures.fixedNow, strict: true)
        #expect(chain == [wwdr, g3])
        #expect(wwdr.hasExtension(oid: SignedDataVerifier.intermediateMarkerOID))
        #expect(wwdr.extensionValue(oid: SignedDataVerifier.intermediateMarkerOID) == [0x05, 0x00])
        #expect(!wwdr.hasExtension(oid: SignedDataVerifier.leafMarkerOID))
        #expect(wwdr.issuerSummary == g3.subjectSummary)
    }

    @Test("WWDR G6 does not chain to Apple Root CA - G2")
    func appleWWDRDoesNotChainToG2() throws {
        let wwdr = try Fixtures.certificate("apple-roots/AppleWWDRCAG6.cer")
        let g2 = try Fixtures.certificate("apple-roots/AppleRootCA-G2.cer")
        #expect(g2.publicKeySummary == "RSA 4096")
        let error = #expect(throws: SignedDataError.self) {
            try X509Certificate.verifyChain(leaf: wwdr, intermediates: [], roots: [g2], at: Fixtures.fixedNow)
        }
        #expect(error?.code == .verificationFailure)
        #expect(error?.message.contains("unable to get local issuer certificate") == true)
    }

    @Test("A PEM preceded by an openssl text dump loads, and equals the same certificate in DER")
    func pemWithTextDump() throws {
        let text = try Fixtures.text("test-pki/testIntermediate.pem")
        #expect(!text.hasPrefix("-----BEGIN"))
        let certificate = try X509Certificate(pemRepresentation: text)
        #expect(certificate.subjectSummary == "O=Intermediate,L=Cupertino,ST=CA,C=US")
        let reparsed = try X509Certificate(derRepresentation: certificate.derRepresentation)
        #expect(reparsed == certificate)
        #expect(try X509Certificate(pemRepresentation: certificate.pemRepresentation) == certificate)
        let der = try Fixtures.certificate("test-pki/testCA.der")
        let pem = try Fixtures.certificate("test-pki/testCA.pem")
        #expect(der == pem)
    }

    @Test("Bytes that are not one certificate are rejected as invalid certificates")
    func rejectsNonCertificates() throws {
        let empty = #expect(throws: SignedDataError.self) { try X509Certificate(derRepresentation: []) }
        #expect(empty?.code == .invalidCertificate)
        let der = try Fixtures.data("test-pki/testCA.der")
        let trailing = #expect(throws: SignedDataError.self) { try X509Certificate(derRepresentation: der + [0]) }
        #expect(trailing?.code == .invalidCertificate)
        let truncated = #expect(throws: SignedDataError.self) { try X509Certificate(derRepresentation: der.dropLast()) }
        #expect(truncated?.code == .invalidCertificate)
        let noBlock = #expect(throws: SignedDataError.self) { try X509Certificate(pemRepresentation: "hello") }
        #expect(noBlock?.code == .invalidCertificate)
        let badBlock = #expect(throws: SignedDataError.self) {
            try X509Certificate(pemRepresentation: "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")
        }
        #expect(badBlock?.code == .invalidCertificate)
    }

    @Test("Marker extensions are found by OID on Apple's test certificates, and wrong OIDs are not")
    func markerExtensions() throws {
        let leaf = try Fixtures.certificate("test-pki/testLeaf.pem")
        let intermediate = try Fixtures.certificate("test-pki/testIntermediate.pem")
        #expect(leaf.extensionValue(oid: "1.2.840.113635.100.6.11.1") == [0x05, 0x00])
        #expect(intermediate.hasExtension(oid: "1.2.840.113635.100.6.2.1"))
        #expect(!leaf.hasExtension(oid: "1.2.840.113635.100.6.2.1"))
        #expect(leaf.extensionValue(oid: "not an oid") == nil)
        let invalidLeaf = try Fixtures.certificate("test-pki/testInvalidOIDLeaf.pem")
        #expect(!invalidLeaf.hasExtension(oid: "1.2.840.113635.100.6.11.1"))
        #expect(invalidLeaf.hasExtension(oid: "1.2.840.113635.100.6.11.2"))
        // basicConstraints of a CA: SEQUENCE { BOOLEAN TRUE, INTEGER 0 }
        #expect(intermediate.extensionValue(oid: "2.5.29.19") == [0x30, 0x06, 0x01, 0x01, 0xff, 0x02, 0x01, 0x00])
    }

    @Test("Apple's test chain verifies at a time inside its validity and fails outside it")
    func chainValidityWindow() throws {
        let leaf = try Fixtures.certificate("test-pki/testLeaf.pem")
        let intermediate = try Fixtures.certificate("test-pki/testIntermediate.pem")
        let root = try Fixtures.certificate("test-pki/testCA.der")
        let chain = try X509Certificate.verifyChain(leaf: leaf, intermediates: [intermediate], roots: [root], at: Fixtures.fixedNow)
        #expect(chain == [leaf, intermediate, root])
        #expect(leaf.notBefore < Fixtures.fixedNow && Fixtures.fixedNow < leaf.notAfter)

        let expired = #expect(throws: SignedDataError.self) {
            try X509Certificate.verifyChain(leaf: leaf, intermediates: [intermediate], roots: [root], at: leaf.notAfter.addingTimeInterval(86_400))
        }
        #expect(expired?.code == .verificationFailure)
        #expect(expired?.message.contains("certificate has expired") == true)
        let early = #expect(throws: SignedDataError.self) {
            try X509Certificate.verifyChain(leaf: leaf, intermediates: [intermediate], roots: [root], at: Date(timeIntervalSince1970: 1_600_000_000))
        }
        #expect(early?.message.contains("not yet valid") == true)
    }

    @Test("Apple's test chain fails OpenSSL's strict checks because it has no key identifiers")
    func appleTestChainIsNotStrict() throws {
        let leaf = try Fixtures.certificate("test-pki/testLeaf.pem")
        let intermediate = try Fixtures.certificate("test-pki/testIntermediate.pem")
        let root = try Fixtures.certificate("test-pki/testCA.der")
        let error = #expect(throws: SignedDataError.self) {
            try X509Certificate.verifyChain(leaf: leaf, intermediates: [intermediate], roots: [root], at: Fixtures.fixedNow, strict: true)
        }
        #expect(error?.code == .verificationFailure)
        #expect(error?.message.contains("Key Identifier") == true)
    }

    @Test("A chain without its intermediate, or to a root not configured, does not verify")
    func incompleteOrUntrustedChains() throws {
        let leaf = try Fixtures.certificate("test-pki/testLeaf.pem")
        let intermediate = try Fixtures.certificate("test-pki/testIntermediate.pem")
        let root = try Fixtures.certificate("test-pki/testCA.der")
        let missing = #expect(throws: SignedDataError.self) {
            try X509Certificate.verifyChain(leaf: leaf, intermediates: [], roots: [root], at: Fixtures.fixedNow)
        }
        #expect(missing?.code == .verificationFailure)
        let untrusted = #expect(throws: SignedDataError.self) {
            try X509Certificate.verifyChain(leaf: leaf, intermediates: [intermediate, root], roots: [AppleRootCertificates.rootCAG3], at: Fixtures.fixedNow)
        }
        #expect(untrusted?.code == .verificationFailure)
        let noRoots = #expect(throws: SignedDataError.self) {
            try X509Certificate.verifyChain(leaf: leaf, intermediates: [intermediate], roots: [], at: Fixtures.fixedNow)
        }
        #expect(noRoots?.code == .invalidCertificate)
    }

    @Test("Certificates are equal and hash by their DER bytes")
    func equality() throws {
        let first = try Fixtures.certificate("test-pki/testCA.der")
        let second = try Fixtures.certificate("test-pki/testCA.der")
        let other = try Fixtures.certificate("test-pki/testLeaf.pem")
        #expect(first == second)
        #expect(Set([first, second, other]).count == 2)
        #expect(first.base64EncodedDER == Data(first.derRepresentation).base64EncodedString())
    }
}
