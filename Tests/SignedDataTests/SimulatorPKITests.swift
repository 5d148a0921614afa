import Foundation
@testable import MatrixModel
@testable import SignedData
import Signing
@testable import TestSupport
import Testing

@Suite("Simulator PKI")
struct SimulatorPKITests {
    @Test("The embedded PKI equals the committed PEM files under Resources/pki")
    func embeddedMatchesFiles() throws {
        let pki = try SimulatorPKI.default
        let directory = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Resources/pki")
        func read(_ name: String) throws -> String {
            String(decoding: try Data(contentsOf: directory.appendingPathComponent(name)), as: UTF8.self)
        }
        #expect(try X509Certificate(pemRepresentation: read("simulator-root.pem")) == pki.root)
        #expect(try X509Certificate(pemRepresentation: read("simulator-intermediate.pem")) == pki.intermediate)
        #expect(try X509Certificate(pemRepresentation: read("simulator-leaf.pem")) == pki.leaf)
        let key = try P256PrivateKey(pemRepresentation: read("simulator-leaf.key"))
        #expect(try key.publicKey.derRepresentation() == pki.leafKey.publicKey.derRepresentation())
    }

    @Test("Every name says plainly that the PKI is not Apple's")
    func namesSayNotApple() throws {
        let pki = try SimulatorPKI.default
        #expect(pki.root.subjectSummary.contains("CN=StoreKit Matrix Simulator Root CA (NOT Apple)"))
        for certificate in pki.chain {
            #expect(certificate.subjectSummary.contains("NOT Apple"))
            #expect(certificate.subjectSummary.contains(#"O=StoreKit Matrix (test only\, not Apple)"#))
        }
        #expect(pki.root.issuerSummary == pki.root.subjectSummary)
        #expect(pki.intermediate.issuerSummary == pki.root.subjectSummary)
        #expect(pki.leaf.issuerSummary == pki.intermediate.subjectSummary)
    }

    @Test("Keys, validity 2020..9999 and extensions have the shape of Apple's chain")
    func shape() throws {
        let pki = try SimulatorPKI.default
        #expect(pki.leaf.publicKeySummary == "EC prime256v1")
        #expect(pki.intermediate.publicKeySummary == "EC secp384r1")
        #expect(pki.root.publicKeySummary == "EC secp384r1")
        for certificate in pki.chain {
            #expect(certificate.notBefore == Date(timeIntervalSince1970: 1_577_836_800)) // 2020-01-01
            #expect(certificate.notAfter == Date(timeIntervalSince1970: 253_402_300_799)) // 9999-12-31T23:59:59Z
            #expect(certificate.hasExtension(oid: "2.5.29.14"), "subjectKeyIdentifier")
            #expect(certificate.hasExtension(oid: "2.5.29.35"), "authorityKeyIdentifier")
        }
        #expect(pki.leaf.extensionValue(oid: SignedDataVerifier.leafMarkerOID) == [0x05, 0x00])
        #expect(pki.intermediate.extensionValue(oid: SignedDataVerifier.intermediateMarkerOID) == [0x05, 0x00])
        #expect(!pki.leaf.hasExtension(oid: SignedDataVerifier.intermediateMarkerOID))
        #expect(!pki.intermediate.hasExtension(oid: SignedDataVerifier.leafMarkerOID))
        // basicConstraints: CA:TRUE with pathlen 0 on the intermediate, CA:FALSE (empty SEQUENCE) on the leaf.
        #expect(pki.intermediate.extensionValue(oid: "2.5.29.19") == [0x30, 0x06, 0x01, 0x01, 0xff, 0x02, 0x01, 0x00])
        #expect(pki.root.extensionValue(oid: "2.5.29.19") == [0x30, 0x03, 0x01, 0x01, 0xff])
        #expect(pki.leaf.extensionValue(oid: "2.5.29.19") == [0x30, 0x00])
        // keyUsage: digitalSignature on the leaf, keyCertSign + cRLSign on the CAs.
        #expect(pki.leaf.extensionValue(oid: "2.5.29.15") == [0x03, 0x02, 0x07, 0x80])
        #expect(pki.intermediate.extensionValue(oid: "2.5.29.15") == [0x03, 0x02, 0x01, 0x06])
        #expect(pki.root.extensionValue(oid: "2.5.29.15") == [0x03, 0x02, 0x01, 0x06])
    }

    @Test("The chain verifies in OpenSSL's strict mode across the simulator's years")
    func strictChain() throws {
        let pki = try SimulatorPKI.default
        for year in [2020.5, 2026.0, 2059.5] {
            let date = Date(timeIntervalSince1970: (year - 1970) * 365.2425 * 86_400)
            let chain = try X509Certificate.verifyChain(leaf: pki.leaf, intermediates: [pki.intermediate], roots: [pki.root], at: date, strict: true)
            #expect(chain == pki.chain)
        }
    }

    @Test("Simulator-signed data of every kind verifies with the simulator root, strictly", arguments: VerifiedSignedData.Kind.allCases)
    func roundTrip(kind: VerifiedSignedData.Kind) throws {
        let pki = try SimulatorPKI.default
        let signedDate = 1_767_225_600_123.25 // 2026-01-01, fractional ms as Xcode writes them
        let payload: [String: Any] = switch kind {
        case .transaction: ["bundleId": "com.example.matrix", "environment": "Sandbox", "signedDate": signedDate, "transactionId": "2000000000000001"]
        case .renewalInfo: ["environment": "Sandbox", "signedDate": signedDate, "autoRenewStatus": 1]
        case .notification: ["notificationType": "SUBSCRIBED", "subtype": "INITIAL_BUY", "signedDate": signedDate,
                             "data": ["bundleId": "com.example.matrix", "environment": "Sandbox", "appAppleId": 42]]
        case .appTransaction: ["bundleId": "com.example.matrix", "receiptType": "Sandbox", "receiptCreationDate": signedDate, "appAppleId": 42]
        }
        let jws = try pki.sign(payload: Fixtures.json(payload))
        let verifier = try SignedDataVerifier(rootCertificates: [pki.root], bundleId: "com.example.matrix", appAppleId: nil, environment: "Sandbox", strictCertificateChecks: true)
        let result = try verifier.verifyAndDecode(jws, kind: kind)
        #expect(result.kind == kind)
        #expect(result.isSignatureVerified)
        #expect(result.fields.signedDate == signedDate)
        #expect(result.fields.environment == "Sandbox")
        #expect(try JSONSerialization.jsonObject(with: result.payload) as? NSDictionary == payload as NSDictionary)
        if kind == .notification {
            #expect(result.fields.notificationType == "SUBSCRIBED")
            #expect(result.fields.subtype == "INITIAL_BUY")
        }
    }

    @Test("Simulator-signed data is rejected by a verifier that trusts Apple Root CA - G3")
    func notTrustedByApple() throws {
        let pki = try SimulatorPKI.default
        let jws = try pki.sign(payload: Fixtures.json(["bundleId": "com.example", "environment": "Sandbox", "signedDate": 1_767_225_600_000]))
        let verifier = try SignedDataVerifier(rootCertificates: [AppleRootCertificates.rootCAG3], bundleId: "com.example", appAppleId: nil, environment: "Sandbox")
        let error = #expect(throws: SignedDataError.self) { try verifier.verifyAndDecodeTransaction(jws) }
        #expect(error?.code == .verificationFailure)
    }

    @Test("A signedDate outside the simulator leaf's validity fails", arguments: [1_546_300_800_000.0, 253_402_387_200_000.0]) // 2019, the year 10000
    func outsideValidity(signedDate: Double) throws {
        let pki = try SimulatorPKI.default
        let jws = try pki.sign(payload: Fixtures.json(["bundleId": "com.example", "environment": "Sandbox", "signedDate": signedDate]))
        let error = #expect(throws: SignedDataError.self) {
            try pki.verifier(bundleId: "com.example", environment: "Sandbox").verifyAndDecodeTransaction(jws)
        }
        #expect(error?.code == .verificationFailure)
        // Past 9999 OpenSSL cannot even compare the dates; the chain still does not verify.
        #expect(error?.message.contains(signedDate < 2e12 ? "not yet valid" : "does not verify at 10000") == true, "\(error?.message ?? "")")
    }

    @Test("Loading a chain whose key is not the leaf's key fails")
    func mismatchedKey() throws {
        let pki = try SimulatorPKI.default
        let error = #expect(throws: SignedDataError.self) {
            try SimulatorPKI(
                leafKeyPEM: Fixtures.text("test-pki/testLeaf.key"),
                leafPEM: pki.leaf.pemRepresentation,
                intermediatePEM: pki.intermediate.pemRepresentation,
                rootPEM: pki.root.pemRepresentation
            )
        }
        #expect(error?.code == .invalidKey)
    }
}
