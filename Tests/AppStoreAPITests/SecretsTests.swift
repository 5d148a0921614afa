import Foundation
import Testing
@testable import AppStoreAPI
@testable import TestSupport

/// The issuer id, the key and the tokens never reach anything that is shown or stored.
@Suite("Secrets stay out of output and evidence")
struct SecretsTests {
    @Test("Redaction removes secrets, JWTs and private key blocks and leaves other text alone")
    func redaction() {
        let redaction = Redaction(secrets: ["ISSUER-42", ""])
        #expect(redaction.scrub("issuer ISSUER-42 said no") == "issuer <redacted> said no")
        #expect(redaction.scrub("Bearer eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJ4In0.c2lnbmF0dXJl, then") == "Bearer <redacted>, then")
        #expect(redaction.scrub("a -----BEGIN PRIVATE KEY-----\nMIGH\n-----END PRIVATE KEY----- b") == "a <redacted> b")
        #expect(redaction.scrub("keyeyJ.a.b and eyJonly.two") == "keyeyJ.a.b and eyJonly.two")
        #expect(redaction.scrub("version 1.2.3 of eyJ") == "version 1.2.3 of eyJ")
    }

    static let issuer = "5f3b1c9e-8a2d-4d00-9e7a-7a1e44c2b901"
    /// The base64 body of a PKCS #8 P-256 key (the test key's shape; not a key anyone uses).
    static let keyBody = "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgevZzL1gdAFr88hb2\nOF/2NxApJCzGCEDdfSp6VQO30hyhRANCAAQRWz+jn65BtOMvdyHKcvjBeBSDZH2r\n1RTwjmYSi9R/zpBnuQ4EiMnCqfMPWiZqB4QdbAd0E7oH50VpuZ1P087G"

    @Test("What the scrubber missed: an unsigned header.payload token, a cut token, the issuer id in other case or without dashes, a bare key body, e-mail addresses",
          arguments: [
            ("token eyJhbGciOiJub25lIn0.eyJpc3MiOiI1ZjNiIn0 here", "token <redacted> here"),
            ("token eyJhbGciOiJub25lIn0.eyJpc3MiOiI1ZjNiIn0. here", "token <redacted> here"),
            ("cut eyJhbGciOiJFUzI1NiIsImtpZCI6 here", "cut <redacted> here"),
            ("cut eyJhbGciOiJFUzI1NiIsImtpZCI6IlRFU1RL.eyJpc3Mi", "cut <redacted>"),
            ("issuer 5F3B1C9E-8A2D-4D00-9E7A-7A1E44C2B901 refused", "issuer <redacted> refused"),
            ("issuer 5f3b1c9e8a2d4d009e7a7a1e44c2b901 refused", "issuer <redacted> refused"),
            ("issuer 5F3B1C9E8A2D4D009E7A7A1E44C2B901 refused", "issuer <redacted> refused"),
            ("key " + SecretsTests.keyBody + " end", "key <redacted> end"),
            ("key MHcCAQEEIHv2cy9YHQBa/PIW9jhf9jcQKSQsxhAg3X0qelUDt9IcoAoGCCqGSM49 end", "key <redacted> end"),
            ("The email 'Tester.One@Example.com' is taken", "The email '<e-mail address>' is taken"),
            ("to a+b_c.d-e@mail.example.co.uk, cc x@y.io.", "to <e-mail address>, cc <e-mail address>."),
          ])
    func missed(text: String, scrubbed: String) {
        #expect(Redaction(secrets: [Self.issuer]).scrub(text) == scrubbed)
    }

    @Test("Text that only looks close is kept", arguments: [
        "version 1.2.3", "eyJonly.two", "MIGHT be fine", "an @ sign and user@localhost", "build 1.4 (212) of com.example.app",
        "SKU MIGRATION-2026 done",
    ])
    func kept(text: String) {
        #expect(Redaction(secrets: [Self.issuer]).scrub(text) == text)
    }

    @Test("Evidence written from answers and errors of a whole session holds no issuer id, key or token")
    func evidenceHasNoSecrets() async throws {
        let transaction = try APIFixtures.signedTransaction()
        let notification = try APIFixtures.signedNotification(transaction: transaction, renewalInfo: try APIFixtures.signedRenewalInfo())
        let server = StubHTTPServer { request, index in
            switch (request.path, index) {
            case ("/inApps/v1/transactions/1", _): return .json(200, object: ["signedTransactionInfo": transaction])
            case ("/inApps/v1/notifications/history", _): return .json(200, object: ["notificationHistory": [["signedPayload": notification]], "hasMore": false])
            case ("/inApps/v2/history/1", _):
                return .json(500, object: ["errorCode": 5000001, "errorMessage": "echo \(request.header("Authorization") ?? "") \(APIFixtures.issuerId)"])
            default: return .answer(status: 401, headers: [:], body: Data())
            }
        }
        let client = try APIFixtures.serverClient(server, retry: RetryPolicy(maximumAttempts: 2, random: { 0 }))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("matrix-evidence-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var lines: [Data] = []
        let signed = try await client.transactionInfo(transactionId: "1")
        lines.append(try encoder.encode(signed))
        lines.append(try encoder.encode(signed.signedItem))
        let records = try await client.notificationHistory(NotificationHistoryQuery(startDate: 1, endDate: 2, transactionId: "1"))
        lines.append(try encoder.encode(records))
        for call in [{ try await client.transactionHistory(transactionId: "1") as Any }, { try await client.refundHistory(transactionId: "1") as Any }] {
            do {
                _ = try await call()
                Issue.record("expected a failure")
            } catch {
                lines.append(Data(String(describing: error).utf8))
                lines.append(Data(String(reflecting: error).utf8))
            }
        }
        lines.append(Data(String(describing: try APIFixtures.credentials()).utf8))
        try lines.reduce(Data()) { $0 + $1 + Data("\n".utf8) }.write(to: directory.appendingPathComponent("evidence.jsonl"))

        let tokens = server.requests.compactMap { $0.header("Authorization")?.dropFirst("Bearer ".count) }.map(String.init)
        #expect(tokens.count == 5)
        let forbidden = [APIFixtures.issuerId] + tokens + (try APIFixtures.keyMaterialLines())
        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
        #expect(files.count == 1)
        for file in files {
            let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
            #expect(text.contains(transaction), "the evidence keeps the signed transaction")
            for secret in forbidden { #expect(!text.contains(secret)) }
            // Each token's signature part alone must not be there either.
            for token in tokens { #expect(!text.contains(String(token.split(separator: ".").last ?? ""))) }
        }
    }
}
