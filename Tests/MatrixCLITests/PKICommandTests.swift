import Foundation
@testable import SignedData
import Signing
@testable import TestSupport
import Testing

@Suite("matrix pki")
struct PKICommandTests {
    @Test("export-root writes the simulator root as DER, or PEM with --pem")
    func exportRoot() async throws {
        let directory = try MatrixBinary.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let root = try SimulatorPKI.default.root
        let der = directory.appendingPathComponent("root.der")
        let pem = directory.appendingPathComponent("root.pem")
        let first = try await CapturedRun.run(["pki", "export-root", "--out", der.path])
        #expect(first.status == 0)
        #expect(first.stderr.contains("SHA-256 fingerprint \(root.sha256Fingerprint)"))
        #expect([UInt8](try Data(contentsOf: der)) == root.derRepresentation)
        #expect(try await CapturedRun.run(["pki", "export-root", "--pem", "--out", pem.path]).status == 0)
        let text = try String(contentsOf: pem, encoding: .utf8)
        #expect(text.hasPrefix("-----BEGIN CERTIFICATE-----\n"))
        #expect(try X509Certificate(pemRepresentation: text) == root)
        // The exported file works as --root.
        let jws = try SimulatorPKI.default.sign(payload: Data(#"{"bundleId":"b","environment":"Sandbox","signedDate":1767225600000}"#.utf8))
        #expect(try await CapturedRun.run(["verify", jws, "--root", der.path]).status == 0)
        #expect(try await CapturedRun.run(["verify", jws, "--root", pem.path]).status == 0)
        #expect(try await CapturedRun.run(["pki", "export"]).status == 64)
    }

    @Test("sign --count N writes N different JWS that verify, and refuses a payload that is not a JSON object")
    func sign() async throws {
        let directory = try MatrixBinary.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let payload = directory.appendingPathComponent("payload.json")
        try #"{"bundleId":"b","environment":"Sandbox","signedDate":1767225600000}"#.write(to: payload, atomically: true, encoding: .utf8)
        let out = directory.appendingPathComponent("jws.txt")
        let result = try await CapturedRun.run(["pki", "sign", payload.path, "--count", "3", "--out", out.path])
        #expect(result.status == 0)
        #expect(result.stderr.contains("signed 3 JWS in"))
        let lines = try String(contentsOf: out, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(Set(lines).count == 3)
        let verifier = try SimulatorPKI.default.verifier(bundleId: "b", environment: "Sandbox")
        for line in lines {
            #expect(try verifier.verifyAndDecodeTransaction(line).isSignatureVerified)
        }
        try "[1, 2]".write(to: payload, atomically: true, encoding: .utf8)
        #expect(try await CapturedRun.run(["pki", "sign", payload.path]).status == 65)
    }
}
