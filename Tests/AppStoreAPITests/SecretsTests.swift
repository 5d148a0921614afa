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
