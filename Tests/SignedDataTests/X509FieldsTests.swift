import Foundation
@testable import SignedData
import Signing
import TestSupport
import Testing

/// Every field `X509Certificate` reads, for every certificate the fixtures and the repository hold, against a
/// golden file recorded from OpenSSL's own accessors (X509_NAME_print_ex with RFC 2253 flags, ASN1_TIME, the
/// public key's base id and group, X509_get_ext_by_OBJ). The fields are read from the DER on every platform, so
/// this pins what a Mac, which has no OpenSSL, reads.
@Suite("X.509 fields read from the DER")
struct X509FieldsTests {
    static let markerAndCommonOIDs = [
        "1.2.840.113635.100.6.11.1", "1.2.840.113635.100.6.2.1", "2.5.29.19", "2.5.29.15", "2.5.29.14", "2.5.29.35",
        "2.5.29.37", "2.5.29.31", "1.3.6.1.5.5.7.1.1", "2.5.29.32", "2.5.29.17", "1.2.3", "not an oid",
    ]

    static func certificates() throws -> [(String, X509Certificate)] {
        var found: [(String, X509Certificate)] = []
        for name in ["x509-edge/escaped-names.pem", "apple-roots/AppleRootCA-G2.cer", "apple-roots/AppleRootCA-G3.cer", "apple-roots/AppleWWDRCAG6.cer",
                     "test-pki/testCA.pem", "test-pki/testIntermediate.pem", "test-pki/testLeaf.pem",
                     "test-pki/testInvalidOIDIntermediate.pem", "test-pki/testInvalidOIDLeaf.pem",
                     "test-pki/testInvalidIntermediateLeaf.pem"] {
            found.append((name, try Fixtures.certificate(name)))
        }
        let pki = try SimulatorPKI.default
        found += [("simulator/leaf", pki.leaf), ("simulator/intermediate", pki.intermediate), ("simulator/root", pki.root)]
        for file in ["xcode/xcode-signed-transaction"] {
            for (index, certificate) in try JWS.decode(Fixtures.jws(file)).header.certificates().enumerated() {
                found.append(("\(file) x5c[\(index)]", certificate))
            }
        }
        return found
    }

    static func fields(of certificate: X509Certificate) -> [String: String] {
        var fields: [String: String] = [
            "subject": certificate.subjectSummary,
            "issuer": certificate.issuerSummary,
            "serial": certificate.serialNumberHex,
            "notBefore": String(certificate.notBefore.timeIntervalSince1970),
            "notAfter": String(certificate.notAfter.timeIntervalSince1970),
            "publicKey": certificate.publicKeySummary,
            "p256": (try? certificate.publicKey().derRepresentation()).map { Data($0).base64EncodedString() } ?? "-",
        ]
        for oid in markerAndCommonOIDs {
            fields["ext " + oid] = certificate.extensionValue(oid: oid).map { Data($0).base64EncodedString() } ?? "-"
        }
        return fields
    }

    @Test("A name with a leading #, a comma, quotes, a trailing space and a multi-valued RDN reads as OpenSSL prints it")
    func escapedNames() throws {
        // openssl x509 -noout -subject -nameopt RFC2253,-esc_msb
        let certificate = try Fixtures.certificate("x509-edge/escaped-names.pem")
        #expect(certificate.subjectSummary == ##"emailAddress=a@b.c,UID=u1+CN=multi,O=\#Cafxc3xa9\, \"Ltd\"\ ,C=FR"##)
        #expect(certificate.serialNumberHex == "80ff")
    }

    @Test("A strict chain check on Apple platforms asks for key identifiers as OpenSSL's strict mode does")
    func strictKeyIdentifiers() throws {
        let apple = try [Fixtures.certificate("apple-roots/AppleWWDRCAG6.cer"), AppleRootCertificates.rootCAG3]
        #expect(StrictChainCheck.problem(in: apple) == nil)
        let simulator = try SimulatorPKI.default
        #expect(StrictChainCheck.problem(in: simulator.chain) == nil)
        let test = try Fixtures.appleTestPKI()
        // Apple's library test chain has no key identifiers: OpenSSL's strict mode refuses it too.
        #expect(StrictChainCheck.problem(in: test.chain)?.contains("Authority Key Identifier") == true)
        #expect(throws: SignedDataError.self) {
            try X509Certificate.verifyChain(leaf: test.leaf, intermediates: [test.intermediate], roots: [test.root], at: Fixtures.fixedNow, strict: true)
        }
    }

    @Test("subject, issuer, serial, validity, key and extensions match what OpenSSL read")
    func fieldsMatchOpenSSL() throws {
        var all: [String: [String: String]] = [:]
        for (name, certificate) in try Self.certificates() {
            all[name] = Self.fields(of: certificate)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try GoldenFile.check(try encoder.encode(all), named: "x509-fields.json")
    }
}
