import AppStoreAPI
import AppStoreModels
import Foundation
import LoopbackHTTP
import LoopbackServerAPI
import MatrixEngine
import MatrixModel
@testable import ServerEnvironment
import SignedData
import Signing
import Testing

/// The loopback App Store Server API during a server run: it answers over HTTP on 127.0.0.1 from the stores the
/// cases ran on, and its notification history is what the runner delivered.
/// Apple: https://developer.apple.com/documentation/appstoreserverapi
@Suite("The loopback App Store Server API in a server run")
struct ServerAPIRunTests {
    @Test("after a refund case, Get Refund History and Get Notification History answer what the store did and what was delivered")
    func answersFromTheRun() async throws {
        let release = ServerRunTests.release
        let backend = try TestBackend(matrix: release, behaviour: .init(failFirstAttempts: 1))
        var adapter = ServerAdapter(settings: try ServerRunTests.settings(backend))
        let key = try P256PrivateKey.generate()
        let api = try adapter.startServerAPI(credentials: ServerAPICredentials(keyId: "K1", issuerId: "I1", bundleId: release.app.bundleId,
                                                                               publicKey: key.publicKey), appAppleId: release.app.appAppleId)
        defer { api.stop() }
        let context = RunContext(runID: "test", environment: "server", build: "test", device: "test", os: "test")
        let sink = ServerRunTests.Sink()
        let index = try #require(release.cases.firstIndex { $0.id == "refund/pro" })
        _ = try await Runner(matrix: release, adapter: adapter, context: context, jobs: 1).run(cases: [index], into: sink)
        let records = await sink.records
        #expect(ServerRunTests.failing(records) == [])
        let deliveries = records.compactMap(\.observed?.server).flatMap(\.deliveries)
        let refund = try #require(deliveries.first { $0.notificationType == "REFUND" })
        let refundPayload = try JSONDecoder().decode(ResponseBodyV2DecodedPayload.self, from: JWS.decodePayload(refund.signedPayload))
        let transactionJWS = try #require(refundPayload.data?.signedTransactionInfo)
        let transaction = try JSONDecoder().decode(JWSTransactionDecodedPayload.self, from: JWS.decodePayload(transactionJWS))
        let transactionId = try #require(transaction.transactionId)

        let factory = APITokenFactory(issuerId: "I1", key: APIKey(keyId: "K1", privateKey: key, source: "test"),
                                      audience: .appStoreServerAPI(bundleId: release.app.bundleId))
        func call(_ method: String, _ target: String, body: [UInt8] = []) async throws -> HTTPResponse {
            let token = try factory.token(issuedAt: Date())
            let request = HTTPRequest(method: method, target: target, headers: [("Authorization", "Bearer \(token)")], body: body)
            return try await LoopbackHTTPClient.send(request, port: api.port, limits: HTTPLimits(timeout: .seconds(10))).get()
        }
        let refunds = try JSONDecoder().decode(RefundHistoryResponse.self, from: Data(try await call("GET", "/inApps/v2/refund/lookup/\(transactionId)").body))
        let refunded = try (refunds.signedTransactions ?? []).map {
            try JSONDecoder().decode(JWSTransactionDecodedPayload.self, from: JWS.decodePayload($0)).transactionId
        }
        #expect(refunded == [transactionId])

        let window = Array(#"{"startDate":\#(refund.signedDate - 86_400_000 * 10),"endDate":\#(refund.signedDate + 1)}"#.utf8)
        let history = try JSONDecoder().decode(NotificationHistoryResponse.self,
                                               from: Data(try await call("POST", "/inApps/v1/notifications/history", body: window).body))
        let items = history.notificationHistory ?? []
        #expect(items.map(\.signedPayload) == deliveries.filter { $0.signedDate <= refund.signedDate }.map(\.signedPayload))
        // Every notification failed once, then succeeded: Apple's history lists both attempts.
        #expect(items.allSatisfy { $0.sendAttempts?.map(\.sendAttemptResult) == ["UNSUCCESSFUL_HTTP_RESPONSE_CODE", "SUCCESS"] })

        let unauthenticated = try await LoopbackHTTPClient.send(HTTPRequest(method: "GET", target: "/inApps/v1/transactions/\(transactionId)"),
                                                                port: api.port, limits: HTTPLimits(timeout: .seconds(10))).get()
        #expect(unauthenticated.status == 401)
    }
}
