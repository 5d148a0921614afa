import Foundation
import Testing
@testable import AppStoreAPI

@Suite("Credentials")
final class CredentialsTests {
    /// Every directory a test makes lives here and goes when the test ends.
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("matrix-credentials-\(UUID().uuidString)")

    deinit {
        try? FileManager.default.removeItem(at: root)
    }

    /// A fresh directory outside any git work tree, with a copy of the test `.p8` key.
    func sandbox() throws -> URL {
        let directory = root.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try APIFixtures.data("test-pki/testSigningKey.p8").write(to: directory.appendingPathComponent("AuthKey_TESTKEY123.p8"))
        return directory
    }

    func write(_ text: String, to url: URL) throws {
        try Data(text.utf8).write(to: url)
    }

    @Test("Environment variables give the issuer id, the key, the bundle id and the app's Apple id")
    func fromEnvironment() throws {
        let directory = try sandbox()
        let credentials = try CredentialsLoader.load(file: nil, environment: [
            "APP_STORE_CONNECT_ISSUER_ID": APIFixtures.issuerId,
            "APP_STORE_CONNECT_KEY_ID": "TESTKEY123",
            "APP_STORE_CONNECT_KEY_PATH": directory.appendingPathComponent("AuthKey_TESTKEY123.p8").path,
            "APP_STORE_BUNDLE_ID": "com.example",
            "APP_STORE_APP_APPLE_ID": "1234",
        ], guard: RepositoryGuard(currentDirectory: directory.path))
        #expect(credentials.issuerId == APIFixtures.issuerId)
        #expect(credentials.connectKey?.keyId == "TESTKEY123")
        #expect(credentials.inAppPurchaseKey == nil)
        #expect(credentials.serverAPIKey?.keyId == "TESTKEY123")
        #expect(credentials.bundleId == "com.example")
        #expect(credentials.appAppleId == 1234)
    }

    @Test("A separate In-App Purchase key is used for the App Store Server API, the other for App Store Connect")
    func twoKeys() throws {
        let directory = try sandbox()
        let path = directory.appendingPathComponent("AuthKey_TESTKEY123.p8").path
        let credentials = try CredentialsLoader.load(environment: [
            "APP_STORE_CONNECT_ISSUER_ID": APIFixtures.issuerId,
            "APP_STORE_CONNECT_KEY_ID": "CONNECT1", "APP_STORE_CONNECT_KEY_PATH": path,
            "APP_STORE_IN_APP_PURCHASE_KEY_ID": "IAPKEY1", "APP_STORE_IN_APP_PURCHASE_KEY_PATH": path,
        ], guard: RepositoryGuard(currentDirectory: directory.path))
        #expect(credentials.serverAPIKey?.keyId == "IAPKEY1")
        #expect(credentials.connectAPIKey?.keyId == "CONNECT1")
    }

    @Test("Nothing configured is .missing; a half-configured key names the variable that is missing")
    func missingPieces() throws {
        let guardHere = RepositoryGuard(currentDirectory: try sandbox().path)
        let nothing = #expect(throws: CredentialsError.self) { try CredentialsLoader.load(file: nil, environment: [:], guard: guardHere) }
        #expect(nothing?.kind == .missing)
        #expect(nothing?.message.contains("--credentials") == true)
        let noPath = #expect(throws: CredentialsError.self) {
            try CredentialsLoader.load(file: nil, environment: ["APP_STORE_CONNECT_ISSUER_ID": "x", "APP_STORE_CONNECT_KEY_ID": "K"], guard: guardHere)
        }
        #expect(noPath?.kind == .invalid)
        #expect(noPath?.message.contains("APP_STORE_CONNECT_KEY_PATH") == true)
        let noIssuer = #expect(throws: CredentialsError.self) {
            try CredentialsLoader.load(file: nil, environment: ["APP_STORE_CONNECT_KEY_ID": "K"], guard: guardHere)
        }
        #expect(noIssuer?.message.contains("APP_STORE_CONNECT_ISSUER_ID") == true)
    }

    @Test("A credentials file reads its key relative to itself")
    func fromFile() throws {
        let directory = try sandbox()
        let file = directory.appendingPathComponent("credentials.json")
        try write(#"{"issuerId": "\#(APIFixtures.issuerId)", "keyId": "TESTKEY123", "keyPath": "AuthKey_TESTKEY123.p8", "bundleId": "com.example", "appAppleId": 99}"#, to: file)
        let credentials = try CredentialsLoader.load(file: file.path, guard: RepositoryGuard(currentDirectory: "/"))
        #expect(credentials.issuerId == APIFixtures.issuerId)
        #expect(credentials.connectKey?.source.hasSuffix("AuthKey_TESTKEY123.p8") == true)
        #expect(credentials.bundleId == "com.example")
        #expect(credentials.appAppleId == 99)
    }

    @Test("A malformed credentials file gives located diagnostics without echoing values")
    func malformedFile() throws {
        let directory = try sandbox()
        let file = directory.appendingPathComponent("credentials.json")
        try write("{\n  \"issuerId\": 42,\n  \"keyId\": \"TESTKEY123\",\n  \"keyPath\": \"AuthKey_TESTKEY123.p8\"\n}\n", to: file)
        let error = #expect(throws: CredentialsError.self) { try CredentialsLoader.load(file: file.path, guard: RepositoryGuard(currentDirectory: "/")) }
        #expect(error?.kind == .invalid)
        let diagnostic = try #require(error?.diagnostics.first)
        #expect(diagnostic.location.line == 2)
        #expect(diagnostic.pointer == "/issuerId")
        #expect(error?.description.contains("TESTKEY123") == false)
    }

    @Test("A key file that is not a P-256 private key is refused by name, not by content")
    func badKey() throws {
        let directory = try sandbox()
        try write("-----BEGIN PRIVATE KEY-----\nnot-a-key-SECRETBODY\n-----END PRIVATE KEY-----\n", to: directory.appendingPathComponent("bad.p8"))
        let error = #expect(throws: CredentialsError.self) {
            try CredentialsLoader.load(environment: ["APP_STORE_CONNECT_ISSUER_ID": "x", "APP_STORE_CONNECT_KEY_ID": "K",
                                                     "APP_STORE_CONNECT_KEY_PATH": directory.appendingPathComponent("bad.p8").path],
                                       guard: RepositoryGuard(currentDirectory: directory.path))
        }
        #expect(error?.kind == .invalid)
        #expect(error?.message.contains("bad.p8") == true)
        #expect(error?.message.contains("SECRETBODY") == false)
    }

    @Test("Files inside a git work tree are refused: the credentials file, and a key it points into the repository")
    func insideRepository() throws {
        let repository = try sandbox()
        try FileManager.default.createDirectory(at: repository.appendingPathComponent(".git"), withIntermediateDirectories: true)
        let file = repository.appendingPathComponent("config/credentials.json")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try write(#"{"issuerId": "x", "keyId": "K", "keyPath": "../AuthKey_TESTKEY123.p8"}"#, to: file)
        let fromInside = #expect(throws: CredentialsError.self) {
            try CredentialsLoader.load(file: "config/credentials.json", guard: RepositoryGuard(currentDirectory: repository.path))
        }
        #expect(fromInside?.kind == .insideRepository)
        #expect(fromInside?.message.contains(repository.standardizedFileURL.resolvingSymlinksInPath().path) == true)

        let outside = try sandbox()
        let outsideFile = outside.appendingPathComponent("credentials.json")
        try write(#"{"issuerId": "x", "keyId": "K", "keyPath": "\#(repository.path)/AuthKey_TESTKEY123.p8"}"#, to: outsideFile)
        let keyInside = #expect(throws: CredentialsError.self) {
            try CredentialsLoader.load(file: outsideFile.path, guard: RepositoryGuard(currentDirectory: outside.path))
        }
        #expect(keyInside?.kind == .insideRepository)
        #expect(keyInside?.message.contains("private key") == true)
    }

    @Test("A file outside the repository is read even when the current directory is inside one")
    func outsideWhileInside() throws {
        let repository = try sandbox()
        try FileManager.default.createDirectory(at: repository.appendingPathComponent(".git"), withIntermediateDirectories: true)
        let outside = try sandbox()
        let file = outside.appendingPathComponent("credentials.json")
        try write(#"{"issuerId": "x", "keyId": "K", "keyPath": "AuthKey_TESTKEY123.p8"}"#, to: file)
        let credentials = try CredentialsLoader.load(file: file.path, guard: RepositoryGuard(currentDirectory: repository.path))
        #expect(credentials.connectKey?.keyId == "K")
    }

    @Test("A directory or a missing file is .unreadable with the reason")
    func unreadable() throws {
        let directory = try sandbox()
        let missing = #expect(throws: CredentialsError.self) {
            try CredentialsLoader.load(file: directory.appendingPathComponent("nope.json").path, guard: RepositoryGuard(currentDirectory: "/"))
        }
        #expect(missing?.kind == .unreadable)
        #expect(missing?.message.contains("no such file") == true)
        let folder = #expect(throws: CredentialsError.self) { try CredentialsLoader.load(file: directory.path, guard: RepositoryGuard(currentDirectory: "/")) }
        #expect(folder?.message.contains("directory") == true)
    }

    @Test("description, debugDescription and dump never show the issuer id or key material")
    func redactedDescriptions() throws {
        let credentials = try APIFixtures.credentials()
        var dumped = ""
        dump(credentials, to: &dumped)
        var dumpedKey = ""
        dump(try APIFixtures.apiKey(), to: &dumpedKey)
        let texts = [credentials.description, credentials.debugDescription, "\(credentials)", String(reflecting: credentials), dumped, dumpedKey]
        let keyLines = try APIFixtures.keyMaterialLines()
        for text in texts {
            #expect(!text.contains(APIFixtures.issuerId))
            for line in keyLines { #expect(!text.contains(line)) }
        }
        #expect(credentials.description.contains("TESTKEY123"))
        #expect(credentials.description.contains("<redacted>"))
    }
}
