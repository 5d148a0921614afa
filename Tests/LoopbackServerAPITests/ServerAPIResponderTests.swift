import AppStoreAPI
import AppStoreModels
import Foundation
import LoopbackHTTP
@testable import LoopbackServerAPI
import MatrixModel
import SignedData
import Signing
import SimulatedStoreKit
import StoreSimulator
import TestSupport
import Testing

/// The loopback App Store Server API answered request by request, without sockets: Apple's paths, shapes, paging
/// and error codes, and bearer tokens checked as Apple checks them.
/// Apple: https://developer.apple.com/documentation/appstoreserverapi
@Suite("The loopback App Store Server API")
struct ServerAPIResponderTests {
    static let bundleId = "com.example.storekitmatrix"
    static let now: Int64 = 1_800_000_000
    static let key = try! P256PrivateKey.generate()

    /// A store where account `a` bought coins 25 times, Pro (refunded) and the monthly subscription; `b` bought nothing.
    struct World: Sendable {
        let responder: ServerAPIResponder
        let state: ServerAPIState
        let store: SimulatedStore
        let factory: APITokenFactory
        var coins: [String] = []
        var pro = ""
        var monthly = ""

        func get(_ target: String, token: String? = nil, method: String = "GET", body: [UInt8] = []) -> HTTPResponse {
            let bearer = token ?? (try? factory.token(issuedAt: Date(timeIntervalSince1970: TimeInterval(ServerAPIResponderTests.now - 10)))) ?? ""
            return responder.respond(to: HTTPRequest(method: method, target: target, headers: [("Authorization", "Bearer \(bearer)")], body: body))
        }
    }

    static func world() throws -> World {
        let matrixCase = MatrixCase(id: "case", kind: "test", account: "a", steps: [])
        let matrix = ExampleMatrix.matrix(accounts: [Account(alias: "a"), Account(alias: "b")], cases: [matrixCase])
        let simulator = AppStoreSimulator(catalog: ExampleMatrix.catalog, configuration: StoreConfiguration(matrix: matrix, case: matrixCase))
        var coins: [String] = []
        for _ in 0..<25 {
            _ = try simulator.purchase(account: "a", productID: ExampleMatrix.coins, device: "d")
            coins.append(simulator.transactions.last?.transactionId ?? "")
        }
        _ = try simulator.purchase(account: "a", productID: ExampleMatrix.pro, device: "d")
        let pro = simulator.transactions.last?.transactionId ?? ""
        _ = try simulator.purchase(account: "a", productID: ExampleMatrix.monthly, device: "d")
        let monthly = simulator.transactions.last?.transactionId ?? ""
        _ = try simulator.refund(account: "a", productID: ExampleMatrix.pro)
        let store = SimulatedStore(simulator, signer: nil)
        let state = ServerAPIState()
        state.register(caseID: "case", store: store)
        let credentials = ServerAPICredentials(keyId: "KEY1", issuerId: "issuer-1", bundleId: bundleId, publicKey: key.publicKey)
        let configuration = ServerAPIConfiguration(credentials: credentials, appAppleId: nil, environment: "Sandbox", pki: try SimulatorPKI.default,
                                                   now: { ServerAPIResponderTests.now })
        let responder = ServerAPIResponder(configuration: configuration, state: state) { _, date in
            [SendAttemptItem(attemptDate: MillisecondsDate(date), sendAttemptResult: "SUCCESS")]
        }
        let factory = APITokenFactory(issuerId: "issuer-1", key: APIKey(keyId: "KEY1", privateKey: key, source: "test"),
                                      audience: .appStoreServerAPI(bundleId: bundleId))
        var world = World(responder: responder, state: state, store: store, factory: factory)
        world.coins = coins
        world.pro = pro
        world.monthly = monthly
        return world
    }

    static func decode<T: Decodable>(_ type: T.Type, _ response: HTTPResponse) throws -> T {
        try JSONDecoder().decode(type, from: Data(response.body))
    }

    static func transaction(_ jws: String) throws -> JWSTransactionDecodedPayload {
        return try JSONDecoder().decode(JWSTransactionDecodedPayload.self, from: JWS.decodePayload(jws))
    }

    @Test("Get Transaction Info answers the transaction signed with the simulator chain")
    func transactionInfo() throws {
        let world = try Self.world()
        let response = world.get("/inApps/v1/transactions/\(world.pro)")
        #expect(response.status == 200)
        let body = try Self.decode(TransactionInfoResponse.self, response)
        let jws = try #require(body.signedTransactionInfo)
        let payload = try Self.transaction(jws)
        #expect(payload.transactionId == world.pro)
        #expect(payload.productId == ExampleMatrix.pro)
        #expect(payload.revocationDate != nil)
        #expect(SimulatorPKI.isSimulatorSigned(jws))
    }

    @Test("Get Transaction History pages 20 at a time with revision and hasMore, and a forged revision is 4000005")
    func historyPaging() throws {
        let world = try Self.world()
        let first = try Self.decode(HistoryResponse.self, world.get("/inApps/v2/history/\(world.coins[3])"))
        #expect(first.signedTransactions?.count == 20)
        #expect(first.hasMore == true)
        #expect(first.bundleId == Self.bundleId)
        #expect(first.environment == "Sandbox")
        let revision = try #require(first.revision)
        let second = try Self.decode(HistoryResponse.self, world.get("/inApps/v2/history/\(world.coins[3])?revision=\(revision)"))
        #expect(second.signedTransactions?.count == 7)
        #expect(second.hasMore == false)
        let ids = try (first.signedTransactions! + second.signedTransactions!).map { try Self.transaction($0).transactionId ?? "" }
        #expect(Set(ids) == Set(world.coins + [world.pro, world.monthly]))
        #expect(ids.count == 27)
        let forged = world.get("/inApps/v2/history/\(world.coins[3])?revision=x99")
        #expect(forged.status == 400)
        #expect(try Self.decode(ServerAPIErrorPayload.self, forged).errorCode == 4_000_005)
    }

    @Test("Get Transaction History filters by productType and revoked, sorts DESCENDING, and rejects an unknown productType with 4000022")
    func historyFilters() throws {
        let world = try Self.world()
        let subscriptions = try Self.decode(HistoryResponse.self, world.get("/inApps/v2/history/\(world.pro)?productType=AUTO_RENEWABLE"))
        #expect(try subscriptions.signedTransactions?.map { try Self.transaction($0).transactionId ?? "" } == [world.monthly])
        let revoked = try Self.decode(HistoryResponse.self, world.get("/inApps/v2/history/\(world.pro)?revoked=true"))
        #expect(try revoked.signedTransactions?.map { try Self.transaction($0).transactionId ?? "" } == [world.pro])
        // The last 20 of 27 ascending are the first 20 descending; h7 stands for a revision an earlier page answered.
        world.state.issue(token: "h7")
        let ascending = try Self.decode(HistoryResponse.self, world.get("/inApps/v2/history/\(world.pro)?revision=h7"))
        let descending = try Self.decode(HistoryResponse.self, world.get("/inApps/v2/history/\(world.pro)?sort=DESCENDING"))
        let up = try (ascending.signedTransactions ?? []).map { try Self.transaction($0).transactionId ?? "" }
        let down = try (descending.signedTransactions ?? []).map { try Self.transaction($0).transactionId ?? "" }
        #expect(up.count == 20)
        #expect(down == up.reversed())
        let bad = world.get("/inApps/v2/history/\(world.pro)?productType=SUBSCRIPTION")
        #expect(bad.status == 400)
        #expect(try Self.decode(ServerAPIErrorPayload.self, bad).errorCode == 4_000_022)
    }

    @Test("an id that is not digits is 4000006 InvalidTransactionIdError, an unknown one 4040010 TransactionIdNotFoundError")
    func transactionErrors() throws {
        let world = try Self.world()
        let invalid = world.get("/inApps/v1/transactions/abc")
        #expect(invalid.status == 400)
        #expect(try Self.decode(ServerAPIErrorPayload.self, invalid).errorCode == 4_000_006)
        let unknown = world.get("/inApps/v1/subscriptions/9999999999")
        #expect(unknown.status == 404)
        #expect(try Self.decode(ServerAPIErrorPayload.self, unknown).errorCode == 4_040_010)
        #expect(world.get("/inApps/v1/nothing").status == 404)
        #expect(world.get("/inApps/v1/transactions/\(world.pro)", method: "POST").status == 405)
    }

    @Test("Get All Subscription Statuses answers the group with status 1, the latest transaction and renewal info; status=2 filters it out")
    func statuses() throws {
        let world = try Self.world()
        let body = try Self.decode(StatusResponse.self, world.get("/inApps/v1/subscriptions/\(world.coins[0])"))
        let group = try #require(body.data?.first)
        #expect(body.data?.count == 1)
        #expect(group.subscriptionGroupIdentifier == ExampleMatrix.groupID)
        let last = try #require(group.lastTransactions?.first)
        #expect(last.status == 1)
        #expect(last.originalTransactionId == world.monthly)
        let renewal = try JSONDecoder().decode(JWSRenewalInfoDecodedPayload.self, from: JWS.decodePayload(try #require(last.signedRenewalInfo)))
        #expect(renewal.autoRenewProductId == ExampleMatrix.monthly)
        let expired = try Self.decode(StatusResponse.self, world.get("/inApps/v1/subscriptions/\(world.coins[0])?status=2"))
        #expect(expired.data == [])
        #expect(try Self.decode(ServerAPIErrorPayload.self, world.get("/inApps/v1/subscriptions/\(world.pro)?status=9")).errorCode == 4_000_031)
    }

    @Test("Get Refund History answers the refunded transaction only")
    func refunds() throws {
        let world = try Self.world()
        let body = try Self.decode(RefundHistoryResponse.self, world.get("/inApps/v2/refund/lookup/\(world.monthly)"))
        #expect(try body.signedTransactions?.map { try Self.transaction($0).transactionId ?? "" } == [world.pro])
        #expect(body.hasMore == false)
    }

    static func historyBody(_ fields: [String: Any]) -> [UInt8] {
        Array((try? JSONSerialization.data(withJSONObject: fields)) ?? Data())
    }

    @Test("Get Notification History pages 20 at a time with paginationToken, filters onlyFailures and by customer, and checks its window")
    func notificationHistory() throws {
        let world = try Self.world()
        for number in 0..<23 {
            let failed = number % 5 == 0
            world.state.recordDelivery(caseID: "case", account: number < 21 ? "a" : "b", notificationUUID: "uuid-\(number)", notificationType: "ONE_TIME_CHARGE",
                                       subtype: nil, signedDate: 1_767_225_600_000 + Int64(number), signedPayload: "jws-\(number)",
                                       attempts: [SendAttemptItem(attemptDate: 1_767_225_600_000, sendAttemptResult: failed ? "TIMED_OUT" : "SUCCESS")])
        }
        let window: [String: Any] = ["startDate": 1_767_225_600_000, "endDate": 1_767_225_700_000]
        let first = try Self.decode(NotificationHistoryResponse.self, world.get("/inApps/v1/notifications/history", method: "POST", body: Self.historyBody(window)))
        #expect(first.notificationHistory?.count == 20)
        #expect(first.hasMore == true)
        let token = try #require(first.paginationToken)
        let second = try Self.decode(NotificationHistoryResponse.self,
                                     world.get("/inApps/v1/notifications/history?paginationToken=\(token)", method: "POST", body: Self.historyBody(window)))
        #expect(second.notificationHistory?.map(\.signedPayload) == ["jws-20", "jws-21", "jws-22"])
        #expect(second.hasMore == false)
        #expect(second.paginationToken == nil)
        var failures = window
        failures["onlyFailures"] = true
        let failed = try Self.decode(NotificationHistoryResponse.self, world.get("/inApps/v1/notifications/history", method: "POST", body: Self.historyBody(failures)))
        #expect(failed.notificationHistory?.map(\.signedPayload) == ["jws-0", "jws-5", "jws-10", "jws-15", "jws-20"])
        #expect(failed.notificationHistory?.first?.sendAttempts?.first?.sendAttemptResult == "TIMED_OUT")
        var customer = window
        customer["transactionId"] = world.pro
        let mine = try Self.decode(NotificationHistoryResponse.self, world.get("/inApps/v1/notifications/history", method: "POST", body: Self.historyBody(customer)))
        #expect(mine.notificationHistory?.count == 20)
        customer["notificationType"] = "REFUND"
        #expect(try Self.decode(ServerAPIErrorPayload.self, world.get("/inApps/v1/notifications/history", method: "POST", body: Self.historyBody(customer))).errorCode == 4_000_019)
        let reversed: [String: Any] = ["startDate": 1_767_225_700_000, "endDate": 1_767_225_600_000]
        #expect(try Self.decode(ServerAPIErrorPayload.self, world.get("/inApps/v1/notifications/history", method: "POST", body: Self.historyBody(reversed))).errorCode == 4_000_013)
        let forged = world.get("/inApps/v1/notifications/history?paginationToken=zz", method: "POST", body: Self.historyBody(window))
        #expect(try Self.decode(ServerAPIErrorPayload.self, forged).errorCode == 4_000_014)
        let tooOld: [String: Any] = ["startDate": 1_700_000_000_000, "endDate": 1_767_225_700_000]
        #expect(try Self.decode(ServerAPIErrorPayload.self, world.get("/inApps/v1/notifications/history", method: "POST", body: Self.historyBody(tooOld))).errorCode == 4_000_012)
    }

    @Test("a missing, malformed, wrongly signed, wrong-kid, wrong-issuer, wrong-bundle or expired token gets 401; a good one 200")
    func bearerTokens() throws {
        let world = try Self.world()
        let path = "/inApps/v1/transactions/\(world.pro)"
        #expect(world.responder.respond(to: HTTPRequest(method: "GET", target: path)).status == 401)
        #expect(world.get(path, token: "not.a.jwt").status == 401)
        let issued = Date(timeIntervalSince1970: TimeInterval(Self.now - 10))
        func token(issuer: String = "issuer-1", keyId: String = "KEY1", key: P256PrivateKey = Self.key, bundle: String = Self.bundleId,
                   at date: Date = issued) throws -> String {
            try APITokenFactory(issuerId: issuer, key: APIKey(keyId: keyId, privateKey: key, source: "test"),
                                audience: .appStoreServerAPI(bundleId: bundle)).token(issuedAt: date)
        }
        #expect(world.get(path, token: try token()).status == 200)
        #expect(world.get(path, token: try token(key: P256PrivateKey.generate())).status == 401)
        #expect(world.get(path, token: try token(keyId: "OTHER")).status == 401)
        #expect(world.get(path, token: try token(issuer: "someone-else")).status == 401)
        #expect(world.get(path, token: try token(bundle: "com.example.other")).status == 401)
        let expired = world.get(path, token: try token(at: Date(timeIntervalSince1970: TimeInterval(Self.now - 3600))))
        #expect(expired.status == 401)
        #expect(expired.text.contains("expired"))
        // Apple's Python and Node libraries send no iat; exp then counts from now, at most 60 minutes ahead.
        func unsigned(_ claims: String) throws -> String {
            try JWS.sign(payload: Data(claims.utf8), headerJSON: Data(#"{"alg":"ES256","kid":"KEY1","typ":"JWT"}"#.utf8), key: Self.key)
        }
        let claims = #"{"aud":"appstoreconnect-v1","bid":"\#(Self.bundleId)","iss":"issuer-1","exp":"#
        #expect(world.get(path, token: try unsigned(claims + "\(Self.now + 300)}")).status == 200)
        #expect(world.get(path, token: try unsigned(claims + "\(Self.now + 7200)}")).status == 401)
        #expect(world.get(path, token: try unsigned(claims + "\(Self.now - 1)}")).status == 401)
        let connect = try APITokenFactory(issuerId: "issuer-1", key: APIKey(keyId: "KEY1", privateKey: Self.key, source: "test"),
                                          audience: .appStoreConnectAPI).token(issuedAt: issued)
        #expect(world.get(path, token: connect).status == 401)
    }

    @Test("paging tokens the server never issued, and numbers with a sign, are refused with Apple's error codes",
          arguments: [("/inApps/v2/history/{pro}?revision=h%2B0", 4_000_005), ("/inApps/v2/history/{pro}?revision=h00", 4_000_005),
                      ("/inApps/v2/history/{pro}?revision=h1", 4_000_005), ("/inApps/v2/history/{pro}?revision=h-0", 4_000_005),
                      ("/inApps/v2/refund/lookup/{pro}?revision=r%2B0", 4_000_005),
                      ("/inApps/v1/subscriptions/{pro}?status=%2B1", 4_000_031), ("/inApps/v1/subscriptions/{pro}?status=01", 4_000_031),
                      ("/inApps/v2/history/{pro}?startDate=%2B5", 4_000_015), ("/inApps/v2/history/{pro}?endDate=%2B5", 4_000_016)])
    func neverIssued(_ target: String, _ code: Int) throws {
        let world = try Self.world()
        let answer = world.get(target.replacingOccurrences(of: "{pro}", with: world.pro))
        #expect(answer.status == 400)
        #expect(try Self.decode(ServerAPIErrorPayload.self, answer).errorCode == Int64(code))
    }

    @Test("a paginationToken the server never issued (n+1) is 4000014, and one it issued is answered")
    func paginationTokens() throws {
        let world = try Self.world()
        for number in 0..<25 {
            world.state.recordDelivery(caseID: "case", account: "a", notificationUUID: "uuid-\(number)", notificationType: "ONE_TIME_CHARGE", subtype: nil,
                                       signedDate: 1_767_225_600_000 + Int64(number), signedPayload: "jws-\(number)",
                                       attempts: [SendAttemptItem(attemptDate: 1_767_225_600_000, sendAttemptResult: "SUCCESS")])
        }
        let window = Self.historyBody(["startDate": 1_767_225_600_000, "endDate": 1_767_225_700_000])
        for forged in ["n%2B1", "n1", "n020", "n%2020"] {
            let answer = world.get("/inApps/v1/notifications/history?paginationToken=\(forged)", method: "POST", body: window)
            #expect(try Self.decode(ServerAPIErrorPayload.self, answer).errorCode == 4_000_014, "\(forged)")
        }
        let first = try Self.decode(NotificationHistoryResponse.self, world.get("/inApps/v1/notifications/history", method: "POST", body: window))
        let token = try #require(first.paginationToken)
        let second = world.get("/inApps/v1/notifications/history?paginationToken=\(token)", method: "POST", body: window)
        #expect(try Self.decode(NotificationHistoryResponse.self, second).notificationHistory?.count == 5)
    }

    @Test("a NotificationHistoryRequest that names a member twice is 4000000, not read first-wins or last-wins")
    func duplicateMembers() throws {
        let world = try Self.world()
        let body = Array(#"{"startDate": 1767225600000, "endDate": 1767225700000, "endDate": 1767225600001}"#.utf8)
        let answer = world.get("/inApps/v1/notifications/history", method: "POST", body: body)
        #expect(try Self.decode(ServerAPIErrorPayload.self, answer).errorCode == 4_000_000)
    }

    /// A token signed with the configured key over `claims`, as a backend holding the key could make it.
    static func signed(_ claims: String, header: String = #"{"alg":"ES256","kid":"KEY1","typ":"JWT"}"#) throws -> String {
        try JWS.sign(payload: Data(claims.utf8), headerJSON: Data(header.utf8), key: key)
    }

    @Test("a correctly signed token with times at the ends of Int64 (iat -1 and exp Int64.max, iat Int64.min) gets 401, not a trap",
          arguments: [("-1", "9223372036854775807"), ("-9223372036854775808", "9223372036854775807"), ("9223372036854775807", "9223372036854775807"),
                      ("0", "9223372036854775807")])
    func extremeTimes(_ iat: String, _ exp: String) throws {
        let world = try Self.world()
        let claims = #"{"aud":"appstoreconnect-v1","bid":"\#(Self.bundleId)","iss":"issuer-1","iat":\#(iat),"exp":\#(exp)}"#
        let answer = world.get("/inApps/v1/transactions/\(world.pro)", token: try Self.signed(claims))
        #expect(answer.status == 401)
        #expect(answer.text.contains("iat") || answer.text.contains("exp"), "\(answer.text)")
    }

    @Test("a 401 never tells the client the configured key id, issuer id or bundle id",
          arguments: [#"{"alg":"ES256","kid":"GUESS","typ":"JWT"}"#, #"{"alg":"ES256","kid":"KEY1","typ":"JWT"}"#])
    func unauthorizedSaysNothingConfigured(_ header: String) throws {
        let world = try Self.world()
        let claims = #"{"aud":"appstoreconnect-v1","bid":"com.example.guess","iss":"guess","exp":\#(Self.now + 60)}"#
        // Signed with another key, then with the right key and wrong claims.
        let other = try P256PrivateKey.generate()
        for token in [try JWS.sign(payload: Data(claims.utf8), headerJSON: Data(header.utf8), key: other), try Self.signed(claims, header: header)] {
            let answer = world.get("/inApps/v1/transactions/\(world.pro)", token: token)
            #expect(answer.status == 401)
            for configured in ["KEY1", "issuer-1", Self.bundleId] {
                #expect(!answer.text.contains(configured), "\(answer.text)")
            }
        }
    }

    @Test("Request a Test Notification answers a token; its status is 4040008 until the attempt is made, then the attempts",
          .timeLimit(.minutes(1)))
    func testNotification() async throws {
        let world = try Self.world()
        let response = world.get("/inApps/v1/notifications/test", method: "POST")
        #expect(response.status == 200)
        let token = try #require(try Self.decode(SendTestNotificationResponse.self, response).testNotificationToken)
        #expect(try Self.decode(ServerAPIErrorPayload.self, world.get("/inApps/v1/notifications/test/unknown")).errorCode == 4_040_008)
        // The attempt is made on a task of its own; the test's time limit bounds the wait, not a count of yields.
        var status = world.get("/inApps/v1/notifications/test/\(token)")
        while status.status != 200, !Task.isCancelled {
            await Task.yield()
            status = world.get("/inApps/v1/notifications/test/\(token)")
        }
        let body = try Self.decode(CheckTestNotificationResponse.self, status)
        #expect(body.sendAttempts?.map(\.sendAttemptResult) == ["SUCCESS"])
        let payload = try JSONDecoder().decode(ResponseBodyV2DecodedPayload.self, from: JWS.decodePayload(try #require(body.signedPayload)))
        #expect(payload.notificationType == "TEST")
        #expect(payload.data?.bundleId == Self.bundleId)
    }

    @Test("a backend that requests test notifications in a loop is stopped at 1000 with 4290000 RateLimitExceededError")
    func testNotificationsAreBounded() async throws {
        let world = try Self.world()
        // A thousand signed tokens and notifications: off the cooperative pool.
        let statuses = await HeavyWork.run {
            (0..<ServerAPIState.maximumTests).map { _ in world.get("/inApps/v1/notifications/test", method: "POST").status }
        }
        #expect(statuses == Array(repeating: 200, count: ServerAPIState.maximumTests))
        let refused = world.get("/inApps/v1/notifications/test", method: "POST")
        #expect(refused.status == 429)
        #expect(try Self.decode(ServerAPIErrorPayload.self, refused).errorCode == 4_290_000)
    }
}
