@testable import AppStoreAPI
import Foundation
@testable import MatrixModel
@testable import SignedData
import Signing
@testable import TestSupport
import Testing

/// The App Store Server API endpoints against a stub serving Apple's documented bodies, with the signed data
/// signed on the fly by Apple's test PKI.
@Suite("App Store Server API client")
struct ServerAPIClientTests {
    @Test("Get Transaction Info sends a fresh ES256 token and returns the verified transaction with its JWS")
    func transactionInfo() async throws {
        let jws = try APIFixtures.signedTransaction()
        let server = StubHTTPServer([.json(200, object: ["signedTransactionInfo": jws])])
        let clock = ManualClock()
        let transaction = try await APIFixtures.serverClient(server, clock: clock).transactionInfo(transactionId: "23456")
        #expect(transaction.jws == jws)
        #expect(transaction.kind == .transaction)
        #expect(transaction.payload.transactionId == "23456")
        #expect(transaction.payload.originalTransactionId == "12345")
        #expect(transaction.payload.productId == "com.example.product")
        #expect(transaction.payload.price == 10990)
        #expect(transaction.verification.contains("verified"))
        #expect(transaction.signedItem == SignedItem(kind: "transaction", jws: jws))

        let request = try #require(server.requests.first)
        #expect(server.requests.count == 1)
        #expect(request.method == "GET")
        #expect(request.path == "/inApps/v1/transactions/23456")
        #expect(request.header("Accept") == "application/json")
        let token = try DecodedToken(authorization: request.header("Authorization"))
        #expect(token.claims["iss"] as? String == APIFixtures.issuerId)
        #expect(token.claims["bid"] as? String == "com.example")
        #expect(token.claims["aud"] as? String == "appstoreconnect-v1")
        #expect(token.int("iat") == Int64(clock.now().timeIntervalSince1970))
        #expect(token.int("exp") == Int64(clock.now().timeIntervalSince1970) + 1200)
        #expect(token.header["kid"] as? String == APIFixtures.keyId)
        #expect(token.verifies(with: try APIFixtures.apiKey().privateKey.publicKey))
    }

    @Test("An id with slashes or a query cannot change the path")
    func idIsEscaped() async throws {
        let server = StubHTTPServer([.json(200, object: ["signedTransactionInfo": try APIFixtures.signedTransaction()])])
        _ = try await APIFixtures.serverClient(server).transactionInfo(transactionId: "../x?y=1")
        let request = try #require(server.requests.first)
        #expect(request.url.absoluteString.hasSuffix("/inApps/v1/transactions/..%2Fx%3Fy%3D1"))
        #expect(request.query("y").isEmpty)
    }

    @Test("Transaction history follows revision across pages with the same filters on every page")
    func historyPaging() async throws {
        var page = try APIFixtures.model("transactionHistoryResponse")
        page["environment"] = "Sandbox"
        func body(_ ids: [String], revision: String, hasMore: Bool) throws -> StubHTTPServer.Response {
            var copy = page
            copy["signedTransactions"] = try ids.map { try APIFixtures.signedTransaction(["transactionId": $0]) }
            copy["revision"] = revision
            copy["hasMore"] = hasMore
            return .json(200, object: copy)
        }
        let server = StubHTTPServer([try body(["1", "2"], revision: "r1", hasMore: true), try body(["3"], revision: "r2", hasMore: true),
                                     try body(["4"], revision: "r3", hasMore: false)])
        let query = TransactionHistoryQuery(productTypes: [.autoRenewable, .consumable], sort: .descending, revoked: false)
        let history = try await APIFixtures.serverClient(server).transactionHistory(transactionId: "12345", query: query)
        #expect(history.transactions.map(\.payload.transactionId) == ["1", "2", "3", "4"])
        #expect(history.pageCount == 3)
        #expect(history.bundleId == "com.example")
        #expect(history.appAppleId == 323232)
        let requests = server.requests
        #expect(requests.map(\.path) == Array(repeating: "/inApps/v2/history/12345", count: 3))
        #expect(requests.map { $0.query("revision") } == [[], ["r1"], ["r2"]])
        let publicKey = try APIFixtures.apiKey().privateKey.publicKey
        for request in requests {
            let token = try DecodedToken(authorization: request.header("Authorization"))
            #expect(token.verifies(with: publicKey))
            #expect(token.claims["bid"] as? String == "com.example")
            #expect(request.query("productType") == ["AUTO_RENEWABLE", "CONSUMABLE"])
            #expect(request.query("sort") == ["DESCENDING"])
            #expect(request.query("revoked") == ["false"])
        }
    }

    @Test("A server that repeats a revision is an error, not an endless loop")
    func historyLoop() async throws {
        let loop = StubHTTPServer.Response.json(200, object: ["revision": "same", "hasMore": true, "signedTransactions": [String]()])
        let server = StubHTTPServer([loop])
        let error = await #expect(throws: AppStoreAPIError.self) { try await APIFixtures.serverClient(server).transactionHistory(transactionId: "1") }
        #expect(error?.code == .invalidResponse)
        #expect(server.requests.count == 2)
    }

    @Test("Paging stops at the page limit with an error")
    func pageLimit() async throws {
        let server = StubHTTPServer { _, index in .json(200, object: ["revision": "r\(index)", "hasMore": true]) }
        let error = await #expect(throws: AppStoreAPIError.self) { try await APIFixtures.serverClient(server).refundHistory(transactionId: "1") }
        #expect(error?.message.contains("more than 10 pages") == true)
        #expect(server.requests.count == 10)
    }

    @Test("All subscription statuses verifies each group's transactions and renewal info")
    func subscriptionStatuses() async throws {
        var body = try APIFixtures.model("getAllSubscriptionStatusesResponse")
        body["environment"] = "Sandbox"
        var groups = body["data"] as? [[String: Any]] ?? []
        for (g, group) in groups.enumerated() {
            var items = group["lastTransactions"] as? [[String: Any]] ?? []
            for (i, item) in items.enumerated() {
                let original = item["originalTransactionId"] as? String ?? ""
                items[i]["signedTransactionInfo"] = try APIFixtures.signedTransaction(["originalTransactionId": original])
                items[i]["signedRenewalInfo"] = try APIFixtures.signedRenewalInfo(["originalTransactionId": original])
            }
            groups[g]["lastTransactions"] = items
        }
        body["data"] = groups
        let server = StubHTTPServer([.json(200, object: body)])
        let statuses = try await APIFixtures.serverClient(server).allSubscriptionStatuses(transactionId: "3749183", status: [1, 5])
        #expect(statuses.groups.map(\.subscriptionGroupIdentifier) == ["sub_group_one", "sub_group_two"])
        #expect(statuses.groups[0].lastTransactions.map(\.statusName) == ["subscribed", "revoked"])
        #expect(statuses.groups[1].lastTransactions.map(\.statusName) == ["expired"])
        #expect(statuses.groups[0].lastTransactions[1].transaction?.payload.originalTransactionId == "5314314134")
        #expect(statuses.groups[0].lastTransactions[0].renewalInfo?.payload.autoRenewProductId == "com.example.product.2")
        #expect(statuses.appAppleId == 5454545)
        #expect(server.requests.first?.query("status") == ["1", "5"])
        #expect(server.requests.first?.path == "/inApps/v1/subscriptions/3749183")
    }

    @Test("Refund history pages through revision and returns the revoked transactions")
    func refundHistory() async throws {
        let revoked = try APIFixtures.model("signedTransactionWithRevocation")
        func signed(_ id: String) throws -> String {
            var model = revoked
            model["environment"] = "Sandbox"
            model["transactionId"] = id
            return try APIFixtures.sign(model)
        }
        let server = StubHTTPServer([.json(200, object: ["signedTransactions": [try signed("a")], "revision": "r1", "hasMore": true]),
                                     .json(200, object: ["signedTransactions": [try signed("b")], "revision": "r2", "hasMore": false])])
        let refunds = try await APIFixtures.serverClient(server).refundHistory(transactionId: "12345")
        #expect(refunds.map(\.payload.transactionId) == ["a", "b"])
        #expect(refunds.first?.payload.revocationType == "REFUND_PRORATED")
        #expect(refunds.first?.payload.revocationPercentage == 50000)
        #expect(server.requests.map(\.path) == ["/inApps/v2/refund/lookup/12345", "/inApps/v2/refund/lookup/12345"])
        #expect(server.requests.last?.query("revision") == ["r1"])
    }

    @Test("Notification history posts the window in ms, follows paginationToken and verifies nested data")
    func notificationHistory() async throws {
        let transaction = try APIFixtures.signedTransaction()
        let renewal = try APIFixtures.signedRenewalInfo()
        let first = try APIFixtures.signedNotification(transaction: transaction, renewalInfo: renewal)
        let second = try APIFixtures.signedNotification(transaction: transaction, renewalInfo: nil, changes: ["notificationType": "DID_RENEW", "subtype": NSNull()])
        let server = StubHTTPServer([
            .json(200, object: ["notificationHistory": [["signedPayload": first, "sendAttempts": [["attemptDate": 1698148900000, "sendAttemptResult": "SUCCESS"]]]],
                                "hasMore": true, "paginationToken": "p1"]),
            .json(200, object: ["notificationHistory": [["signedPayload": second]], "hasMore": false]),
        ])
        let query = NotificationHistoryQuery(startDate: 1_698_148_800_000, endDate: 1_698_149_000_000, transactionId: "12345")
        let records = try await APIFixtures.serverClient(server).notificationHistory(query)
        #expect(records.map(\.typeAndSubtype) == ["SUBSCRIBED/INITIAL_BUY", "DID_RENEW"])
        #expect(records[0].transaction?.payload.transactionId == "23456")
        #expect(records[0].renewalInfo?.payload.productId == "com.example.product")
        #expect(records[1].renewalInfo == nil)
        #expect(records[0].sendAttempts == [SendAttemptItem(attemptDate: 1_698_148_900_000, sendAttemptResult: "SUCCESS")])

        let requests = server.requests
        #expect(requests.map(\.method) == ["POST", "POST"])
        #expect(requests.map { $0.query("paginationToken") } == [[], ["p1"]])
        let body = try JSONSerialization.jsonObject(with: try #require(requests[0].body)) as? [String: Any]
        #expect((body?["startDate"] as? NSNumber)?.int64Value == 1_698_148_800_000)
        #expect((body?["endDate"] as? NSNumber)?.int64Value == 1_698_149_000_000)
        #expect(body?["transactionId"] as? String == "12345")
        #expect(body?.count == 3)
        #expect(requests[0].header("Content-Type") == "application/json")
        #expect(requests[1].body == requests[0].body)
    }

    @Test("A notification history query Apple would refuse fails before anything is sent",
          arguments: [NotificationHistoryQuery(startDate: 10, endDate: 10),
                      NotificationHistoryQuery(startDate: 1, endDate: 10, notificationType: "REFUND", transactionId: "1"),
                      NotificationHistoryQuery(startDate: 1, endDate: 10, notificationSubtype: "INITIAL_BUY")])
    func invalidNotificationQuery(query: NotificationHistoryQuery) async throws {
        let server = StubHTTPServer([.json(200, "{}")])
        let error = await #expect(throws: AppStoreAPIError.self) { try await APIFixtures.serverClient(server).notificationHistory(query) }
        #expect(error?.code == .badRequest)
        #expect(server.requests.isEmpty)
    }

    @Test("Request a Test Notification posts without a body and returns the token; its status verifies the notification")
    func testNotification() async throws {
        let notification = try APIFixtures.signedNotification(transaction: nil, renewalInfo: nil, changes: ["notificationType": "TEST", "subtype": NSNull()])
        let server = StubHTTPServer { request, _ in
            request.method == "POST" ? .json(200, object: ["testNotificationToken": "ce3af791-365e-4c60-841b-1674b43c1609_1681314324000"])
                : .json(200, object: ["signedPayload": notification, "sendAttempts": [["attemptDate": 1, "sendAttemptResult": "NO_RESPONSE"]]])
        }
        let client = try APIFixtures.serverClient(server)
        let token = try await client.requestTestNotification()
        #expect(token == "ce3af791-365e-4c60-841b-1674b43c1609_1681314324000")
        let status = try await client.testNotificationStatus(token: token)
        #expect(status.notification?.payload.notificationType == "TEST")
        #expect(status.sendAttempts.first?.sendAttemptResult == "NO_RESPONSE")
        #expect(server.requests.map(\.path) == ["/inApps/v1/notifications/test", "/inApps/v1/notifications/test/\(token)"])
        #expect(server.requests[0].body == nil || server.requests[0].body?.isEmpty == true)
    }

    @Test("A base URL with a path prefix keeps it (a proxy)")
    func baseURLPrefix() async throws {
        let server = StubHTTPServer([.json(200, object: ["signedTransactionInfo": try APIFixtures.signedTransaction()])])
        let client = try AppStoreServerAPIClient(
            credentials: APIFixtures.credentials(),
            configuration: .init(environment: .sandbox, baseURL: server.baseURL.appendingPathComponent("appstore/"), clock: ManualClock(),
                                 rootCertificates: [APIFixtures.testRoot()], session: server.session))
        _ = try await client.transactionInfo(transactionId: "1")
        #expect(server.requests.first?.path == "/appstore/inApps/v1/transactions/1")
    }

    @Test("Apple's base URLs are the documented ones")
    func baseURLs() {
        #expect(SignedEnvironment.production.serverAPIBaseURL?.absoluteString == "https://api.storekit.itunes.apple.com")
        #expect(SignedEnvironment.sandbox.serverAPIBaseURL?.absoluteString == "https://api.storekit-sandbox.itunes.apple.com")
        #expect(AppStoreConnectAPIClient.appleBaseURL.absoluteString == "https://api.appstoreconnect.apple.com")
    }
}
