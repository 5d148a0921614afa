import Foundation
import SignedData
import TestSupport

/// Reads files under `Tests/SignedDataTests/Fixtures/`, located from this source file's path.
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func data(_ path: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(path))
    }

    static func text(_ path: String) throws -> String {
        String(decoding: try data(path), as: UTF8.self)
    }

    /// A compact JWS file without surrounding whitespace.
    static func jws(_ path: String) throws -> String {
        try text(path).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func certificate(_ path: String) throws -> X509Certificate {
        if path.hasSuffix(".pem") {
            return try X509Certificate(pemRepresentation: text(path))
        }
        return try X509Certificate(derRepresentation: data(path))
    }

    /// Apple's library test PKI: testLeaf ← testIntermediate ← testCA.
    static func appleTestPKI() throws -> SimulatorPKI {
        try SimulatorPKI(
            leafKeyPEM: text("test-pki/testLeaf.key"),
            leafPEM: text("test-pki/testLeaf.pem"),
            intermediatePEM: text("test-pki/testIntermediate.pem"),
            rootPEM: text("test-pki/testCA.pem")
        )
    }

    /// 2025-01-01T00:00:00Z: inside the validity of Apple's test PKI, the simulator PKI and the real Apple chain.
    static let fixedNow = Date(timeIntervalSince1970: 1_735_689_600)

    static func json(_ object: [String: Any]) throws -> Data {
        try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    }
}
