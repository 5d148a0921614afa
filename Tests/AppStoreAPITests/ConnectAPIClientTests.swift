import Foundation
import Testing
@testable import AppStoreAPI
@testable import TestSupport

/// The sandbox tester endpoints against a stub serving the shapes of Apple's documented examples.
@Suite("App Store Connect API client: sandbox testers")
struct ConnectAPIClientTests {
    static func tester(_ id: String, email: String, rate: String = "MONTHLY_RENEWAL_EVERY_FIVE_MINUTES", interrupt: Bool = false) -> [String: Any] {
        ["type": "sandboxTesters", "id": id,
         "attributes": ["firstName": "Anne", "lastName": "Johnson", "acAccountName": email, "territory": "USA",
                        "applePayCompatible": true, "interruptPurchases": interrupt, "subscriptionRenewalRate": rate],
         "links": ["self": "https://api.appstoreconnect.apple.com/v2/sandboxTesters/\(id)"]]
    }

    @Test("Listing follows links.next against the configured host, with a token that has no bid")
    func listPages() async throws {
        let server = StubHTTPServer([
            .json(200, object: ["data": [Self.tester("t1", email: "a@example.com")],
                                "links": ["self": "https://api.appstoreconnect.apple.com/v2/sandboxTesters",
                                          "next": "https://api.appstoreconnect.apple.com/v2/sandboxTesters?cursor=Mg.AO&limit=1"],
                                "meta": ["paging": ["total": 2, "limit": 1]]]),
            .json(200, object: ["data": [Self.tester("t2", email: "b@example.com", rate: "MONTHLY_RENEWAL_EVERY_ONE_HOUR", interrupt: true)],
                                "links": ["self": "https://api.appstoreconnect.apple.com/v2/sandboxTesters?cursor=Mg.AO&limit=1"]]),
        ])
        let testers = try await APIFixtures.connectClient(server).sandboxTesters()
        #expect(testers.map(\.id) == ["t1", "t2"])
        #expect(testers[0].acAccountName == "a@example.com")
        #expect(testers[0].subscriptionRenewalRate == .everyFiveMinutes)
        #expect(testers[1].subscriptionRenewalRate?.shortName == "1h")
        #expect(testers[1].interruptPurchases == true)
        #expect(testers[0].territory == "USA")

        let requests = server.requests
        #expect(requests.count == 2)
        #expect(requests.allSatisfy { $0.url.host == server.baseURL.host })
        #expect(requests[0].path == "/v2/sandboxTesters")
        #expect(requests[0].query("limit") == ["200"])
        #expect(requests[1].query("cursor") == ["Mg.AO"])
        let token = try DecodedToken(authorization: requests[0].header("Authorization"))
        #expect(token.claims["bid"] == nil)
        #expect(token.claims["aud"] as? String == "appstoreconnect-v1")
        #expect(token.claims["iss"] as? String == APIFixtures.issuerId)
    }

    @Test("A links.next on another host is followed on the configured host only")
    func nextOnOtherHost() async throws {
        let server = StubHTTPServer([
            .json(200, object: ["data": [Self.tester("t1", email: "a@example.com")], "links": ["next": "https://evil.example/v2/sandboxTesters?cursor=x"]]),
            .json(200, object: ["data": [Any](), "links": [String: Any]()]),
        ])
        _ = try await APIFixtures.connectClient(server).sandboxTesters()
        #expect(server.requests.map { $0.url.host } == [server.baseURL.host, server.baseURL.host])
        #expect(server.requests.last?.query("cursor") == ["x"])
    }

    @Test("Modify a sandbox tester sends Apple's PATCH document and returns the updated tester")
    func update() async throws {
        let server = StubHTTPServer([.json(200, object: ["data": Self.tester("47be9e57", email: "a@example.com", rate: "MONTHLY_RENEWAL_EVERY_THIRTY_MINUTES", interrupt: true)])])
        let tester = try await APIFixtures.connectClient(server).updateSandboxTester(id: "47be9e57", subscriptionRenewalRate: .everyThirtyMinutes,
                                                                                     interruptPurchases: true)
        #expect(tester.subscriptionRenewalRate == .everyThirtyMinutes)
        let request = try #require(server.requests.first)
        #expect(request.method == "PATCH")
        #expect(request.path == "/v2/sandboxTesters/47be9e57")
        let body = String(decoding: try #require(request.body), as: UTF8.self)
        #expect(body == #"{"data":{"attributes":{"interruptPurchases":true,"subscriptionRenewalRate":"MONTHLY_RENEWAL_EVERY_THIRTY_MINUTES"},"id":"47be9e57","type":"sandboxTesters"}}"#)
    }

    @Test("An update with nothing to change is refused before sending")
    func emptyUpdate() async throws {
        let server = StubHTTPServer([.json(200, "{}")])
        let error = await #expect(throws: AppStoreAPIError.self) { try await APIFixtures.connectClient(server).updateSandboxTester(id: "x") }
        #expect(error?.code == .badRequest)
        #expect(server.requests.isEmpty)
    }

    @Test("Clear purchase history posts the testers as relationships and returns the request id")
    func clear() async throws {
        let server = StubHTTPServer([.json(201, #"{"data": {"type": "sandboxTestersClearPurchaseHistoryRequest", "id": "req-1"}}"#)])
        let id = try await APIFixtures.connectClient(server).clearPurchaseHistory(testerIds: ["t1", "t2"])
        #expect(id == "req-1")
        let request = try #require(server.requests.first)
        #expect(request.method == "POST")
        #expect(request.path == "/v2/sandboxTestersClearPurchaseHistoryRequest")
        let body = String(decoding: try #require(request.body), as: UTF8.self)
        #expect(body == #"{"data":{"relationships":{"sandboxTesters":{"data":[{"id":"t1","type":"sandboxTesters"},{"id":"t2","type":"sandboxTesters"}]}},"type":"sandboxTestersClearPurchaseHistoryRequest"}}"#)
    }

    @Test("App Store Connect errors map to codes and messages", arguments: [
        (401, "NOT_AUTHORIZED", AppStoreAPIError.Code.unauthorized, "App Store Connect API team key"),
        (403, "FORBIDDEN_ERROR", .forbidden, "role"),
        (404, "NOT_FOUND", .notFound, "matrix sandbox testers"),
        (409, "ENTITY_ERROR.ATTRIBUTE.INVALID", .badRequest, "refused"),
    ])
    func errors(status: Int, code: String, expected: AppStoreAPIError.Code, words: String) async throws {
        let server = StubHTTPServer([.json(status, object: ["errors": [["status": String(status), "code": code, "title": "Title", "detail": "Detail."]]])])
        let error = await #expect(throws: AppStoreAPIError.self) { try await APIFixtures.connectClient(server).clearPurchaseHistory(testerIds: ["t"]) }
        #expect(error?.code == expected)
        #expect(error?.appleErrorName == code)
        #expect(error?.appleErrorMessage == "Title: Detail.")
        #expect(error?.message.contains(words) == true)
        #expect(error?.api == .appStoreConnect)
        #expect(server.requests.count == 1)
    }

    @Test("Renewal rates read from 3m, 5m, 15m, 30m, 1h and raw values, and nothing else",
          arguments: [("3m", "MONTHLY_RENEWAL_EVERY_THREE_MINUTES"), ("5m", "MONTHLY_RENEWAL_EVERY_FIVE_MINUTES"),
                      ("15m", "MONTHLY_RENEWAL_EVERY_FIFTEEN_MINUTES"), ("30m", "MONTHLY_RENEWAL_EVERY_THIRTY_MINUTES"),
                      ("1h", "MONTHLY_RENEWAL_EVERY_ONE_HOUR"), ("60m", "MONTHLY_RENEWAL_EVERY_ONE_HOUR"),
                      ("monthly_renewal_every_five_minutes", "MONTHLY_RENEWAL_EVERY_FIVE_MINUTES")])
    func renewalRates(text: String, raw: String) {
        #expect(SandboxRenewalRate(shortName: text)?.rawValue == raw)
    }

    @Test("Unknown renewal rates are refused", arguments: ["4m", "2h", "", "fast", "m"])
    func badRenewalRates(text: String) {
        #expect(SandboxRenewalRate(shortName: text) == nil)
    }

    @Test("A tester's description leaves out the e-mail address and names")
    func testerDescription() {
        let tester = SandboxTester(id: "t1", firstName: "Anne", lastName: "Johnson", acAccountName: "anne@example.com", territory: "USA",
                                   interruptPurchases: false, subscriptionRenewalRate: .everyFiveMinutes)
        #expect(tester.description == "SandboxTester(t1, territory USA, renewal 5m, interrupt purchases off)")
    }
}
