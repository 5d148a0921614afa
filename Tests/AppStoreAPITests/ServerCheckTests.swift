import Foundation
import Testing
import GuidedEnvironment
import MatrixEngine
import MatrixModel
import TestSupport

/// Guided steps cross-checked with the App Store Server API (stubbed, data signed with Apple's test PKI).
@Suite("Server cross-check of guided steps")
struct ServerCheckTests {
    static let matrix = Matrix(
        name: "check", app: AppInfo(bundleId: APIFixtures.bundleId),
        catalog: StoreKitConfiguration(products: [CatalogProduct(productID: "pro", type: .nonConsumable)]),
        tiers: [Tier(name: "pro", productIDs: ["pro"])], accounts: [Account(alias: "a")],
        cases: [MatrixCase(id: "buy", kind: "fresh-purchase", account: "a", steps: [
            Step(action: .purchase, product: "pro", expect: Expectation(access: ["pro"], result: "success", notifications: ["ONE_TIME_CHARGE"])),
        ])])

    /// A stub App Store: one ONE_TIME_CHARGE notification for transaction T1 of "pro"; `revoked` marks it refunded.
    func server(revoked: Bool) throws -> StubHTTPServer {
        var changes: [String: Any] = ["transactionId": "T1", "originalTransactionId": "T1", "productId": "pro", "type": "Non-Consumable",
                                      "bundleId": APIFixtures.bundleId]
        if !revoked {
            changes["revocationDate"] = NSNull()
            changes["revocationReason"] = NSNull()
        }
        let transaction = try APIFixtures.signedTransaction(changes)
        let notification = try APIFixtures.signedNotification(transaction: transaction, renewalInfo: nil,
                                                              changes: ["notificationType": "ONE_TIME_CHARGE", "subtype": NSNull()])
        return StubHTTPServer { request, _ in
            switch request.path {
            case "/inApps/v1/notifications/history":
                return .json(200, object: ["notificationHistory": [["signedPayload": notification, "sendAttempts": []]], "hasMore": false])
            case "/inApps/v2/history/T1":
                return .json(200, object: ["signedTransactions": [transaction], "hasMore": false, "revision": "r1",
                                           "bundleId": APIFixtures.bundleId, "environment": "Sandbox"])
            case "/inApps/v1/subscriptions/T1":
                return .json(200, object: ["data": [], "bundleId": APIFixtures.bundleId, "environment": "Sandbox"])
            case "/inApps/v1/transactions/T1":
                return .json(200, object: ["signedTransactionInfo": transaction])
            default:
                return .json(404, object: ["errorCode": 4040010, "errorMessage": "Transaction id not found."])
            }
        }
    }

    func run(revoked: Bool, answer: String) async throws -> EvidenceRecord {
        let stub = try server(revoked: revoked)
        defer { withExtendedLifetime(stub) {} }
        let check = AppStoreServerCheck(client: try APIFixtures.serverClient(stub))
        let prompter = try ScriptedPrompter(jsonLines: Data(answer.utf8), path: "answers.jsonl")
        let adapter = GuidedAdapter(environment: .sandbox, schedule: .sandbox(.default), build: "1", device: "d", os: "o",
                                    prompter: prompter, serverCheck: check)
        let sink = CollectingSink()
        _ = try await Runner(matrix: Self.matrix, adapter: adapter,
                             context: RunContext(runID: "r", environment: "sandbox", build: "1", device: "d", os: "o")).run(into: sink)
        return try #require(await sink.records.first)
    }

    @Test("the server's notifications, signed transactions and entitlements join the tester's observation")
    func agreement() async throws {
        let record = try await run(revoked: false, answer: #"{"case": "buy", "step": 0, "access": ["pro"], "result": "success"}"#)
        #expect(record.verdict == .pass, "\(record.reason ?? "")")
        let observed = try #require(record.observed)
        #expect(observed.notifications == ["ONE_TIME_CHARGE"])
        #expect(observed.entitlements == ["pro"])
        #expect(observed.transactionIds == ["T1"])
        #expect(observed.signedData.map(\.kind) == ["notification"])
        #expect(observed.notObserved?.contains("notifications") == false)
        #expect(observed.notObserved?.contains("balance") == true)
    }

    @Test("when the tester's report and the server disagree, the step fails with both shown")
    func disagreement() async throws {
        let record = try await run(revoked: true, answer: #"{"case": "buy", "step": 0, "access": ["pro"], "result": "success"}"#)
        #expect(record.verdict == .fail)
        #expect(record.reason?.contains(#"the tester saw ["pro"]; the App Store Server API's transactions grant []"#) == true,
                "\(record.reason ?? "")")
    }
}

/// Keeps every record.
actor CollectingSink: EvidenceSink {
    var records: [EvidenceRecord] = []
    func append(_ record: EvidenceRecord) async throws { records.append(record) }
}
