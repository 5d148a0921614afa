import Foundation
@testable import AppStoreAPI
@testable import MatrixModel
@testable import SignedData
@testable import TestSupport

/// Fixtures under `Tests/AppStoreAPITests/Fixtures`, test credentials, and signing with Apple's test PKI.
enum APIFixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func data(_ path: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(path))
    }

    static func text(_ path: String) throws -> String {
        String(decoding: try data(path), as: UTF8.self)
    }

    /// A JSON object from `models/NAME.json`.
    static func model(_ name: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: data("models/\(name).json"))
        guard let dictionary = object as? [String: Any] else { throw FixtureError(name) }
        return dictionary
    }

    struct FixtureError: Error {
        var name: String
        init(_ name: String) { self.name = name }
    }

    // MARK: Credentials

    /// A distinctive issuer id, so that a leak is easy to find.
    static let issuerId = "5f3b1c9e-ISSUER-d00d-secret-7a1e44c2b901"
    static let keyId = "TESTKEY123"
    static let bundleId = "com.example"

    /// The base64 body line of `testSigningKey.p8`, to search written files for.
    static func keyMaterialLines() throws -> [String] {
        try text("test-pki/testSigningKey.p8").split(separator: "\n").map(String.init).filter { !$0.hasPrefix("-----") }
    }

    static func apiKey() throws -> APIKey {
        try APIKey(keyId: keyId, pemRepresentation: text("test-pki/testSigningKey.p8"), source: "testSigningKey.p8")
    }

    static func credentials(bundleId: String? = APIFixtures.bundleId) throws -> AppStoreCredentials {
        try AppStoreCredentials(issuerId: issuerId, connectKey: apiKey(), bundleId: bundleId)
    }

    // MARK: Signing with Apple's test PKI

    static func testPKI() throws -> SimulatorPKI {
        try SimulatorPKI(leafKeyPEM: text("test-pki/testLeaf.key"), leafPEM: text("test-pki/testLeaf.pem"),
                         intermediatePEM: text("test-pki/testIntermediate.pem"), rootPEM: text("test-pki/testCA.pem"))
    }

    static func testRoot() throws -> X509Certificate {
        try X509Certificate(derRepresentation: data("test-pki/testCA.der"))
    }

    /// Signs `object` with the test leaf.
    static func sign(_ object: [String: Any]) throws -> String {
        try testPKI().sign(payload: JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
    }

    /// Apple's `signedTransaction.json` model in Sandbox for `com.example`, with `changes` applied, signed.
    static func signedTransaction(_ changes: [String: Any] = [:]) throws -> String {
        var model = try model("signedTransaction")
        model["environment"] = "Sandbox"
        model.merge(changes) { _, new in new }
        return try sign(model)
    }

    /// Apple's `signedRenewalInfo.json` model in Sandbox, with `changes` applied, signed.
    static func signedRenewalInfo(_ changes: [String: Any] = [:]) throws -> String {
        var model = try model("signedRenewalInfo")
        model["environment"] = "Sandbox"
        model.merge(changes) { _, new in new }
        return try sign(model)
    }

    /// Apple's `signedNotification.json` model in Sandbox, carrying `transaction` and `renewalInfo` JWS.
    static func signedNotification(transaction: String?, renewalInfo: String?, changes: [String: Any] = [:]) throws -> String {
        var model = try model("signedNotification")
        var data = model["data"] as? [String: Any] ?? [:]
        data["environment"] = "Sandbox"
        data["signedTransactionInfo"] = transaction
        data["signedRenewalInfo"] = renewalInfo
        model["data"] = data
        model.merge(changes) { _, new in new }
        return try sign(model)
    }

    // MARK: Clients

    /// 2025-01-01T00:00:00Z, inside the test PKI's validity.
    static let start = Date(timeIntervalSince1970: 1_735_689_600)

    static func serverClient(_ server: StubHTTPServer, clock: ManualClock = ManualClock(), retry: RetryPolicy = APIFixtures.retry,
                             timeout: Double = 5, environment: SignedEnvironment = .sandbox,
                             credentials: AppStoreCredentials? = nil) throws -> AppStoreServerAPIClient {
        try AppStoreServerAPIClient(
            credentials: credentials ?? APIFixtures.credentials(),
            configuration: .init(environment: environment, baseURL: server.baseURL, timeout: timeout, retry: retry, clock: clock,
                                 rootCertificates: [testRoot()], session: server.session, maximumPages: 10))
    }

    static func connectClient(_ server: StubHTTPServer, clock: ManualClock = ManualClock(), retry: RetryPolicy = APIFixtures.retry) throws -> AppStoreConnectAPIClient {
        try AppStoreConnectAPIClient(credentials: credentials(),
                                     configuration: .init(baseURL: server.baseURL, timeout: 5, retry: retry, clock: clock, session: server.session))
    }

    /// Four attempts with a fixed jitter of one half.
    static let retry = RetryPolicy(maximumAttempts: 4, baseDelay: 0.5, maximumDelay: 8, maximumRetryAfter: 60, random: { 0.5 })
}
