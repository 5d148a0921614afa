import Foundation
import Testing
@testable import EvidenceStore
@testable import MatrixJSON
@testable import MatrixModel
@testable import TestSupport

/// The hand-written evidence encoding is byte for byte what `JSONEncoder` writes, and knows every field.
@Suite("Evidence line")
struct EvidenceLineTests {
    /// Awkward text: quotes, backslashes, slashes, every kind of control character, non-ASCII and emoji.
    static let awkward = "a \"quoted\" back\\slash / path\n\r\t\u{8}\u{C}\u{1}\u{1F}\u{7F} é e\u{301} \u{2028} 😀"

    /// A record with every optional field set and dictionaries whose keys sort differently by byte, by
    /// number and by case.
    static var full: EvidenceRecord {
        let keys = ["b", "B", "a10", "a9", "é", "e\u{301}z", "", awkward]
        let expectation = Expectation(
            access: ["pro", awkward], entitlements: ["com.example.pro"], result: "success",
            subscriptionStatus: Dictionary(uniqueKeysWithValues: keys.map { ($0, "subscribed") }),
            balance: Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, $0 - 3) }),
            notifications: ["DID_RENEW", "SUBSCRIBED/INITIAL_BUY"], renewals: 12,
            transaction: TransactionExpectation(product: "p", inAppOwnershipType: "FAMILY_SHARED", isUpgraded: true, revoked: false,
                                                revocationReason: 1, transactionReason: "RENEWAL", offerType: 2, price: 4990, currency: "EUR",
                                                expiresAfter: ISO8601Duration(weeks: 1)),
            renewalInfo: RenewalInfoExpectation(group: "VIP", autoRenewStatus: 0, autoRenewProductId: "q", expirationIntent: 1,
                                                isInBillingRetryPeriod: true),
            eligibleForIntroOffer: Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, $0 % 2 == 0) }),
            displayPrice: Dictionary(uniqueKeysWithValues: keys.map { ($0, "€4.99 " + awkward) }),
            introductoryOffer: Dictionary(uniqueKeysWithValues: keys.map { ($0, "freeTrial") }), serverNotifications: false)
        var observation = Observation(
            access: ["pro"], entitlements: ["com.example.pro"], result: "pending",
            subscriptionStatus: ["VIP": "inGracePeriod", "Basic": "expired"], balance: ["coins": -5, "gems": 9_000_000_000],
            notifications: ["REFUND"], renewals: 3,
            transactions: [ObservedTransaction(transactionId: "1", originalTransactionId: "0", productId: "p", purchaseDate: 1_767_225_600_000,
                                               expiresDate: 1_769_904_000_000, inAppOwnershipType: "PURCHASED", isUpgraded: true,
                                               revocationDate: 1_768_000_000_000, revocationReason: 0, transactionReason: "PURCHASE",
                                               offerType: 1, quantity: 2, price: 0, currency: "JPY")],
            renewalInfo: ["VIP": ObservedRenewalInfo(originalTransactionId: "0", productId: "p", autoRenewStatus: 1, autoRenewProductId: "q",
                                                     expirationIntent: 2, isInBillingRetryPeriod: true,
                                                     gracePeriodExpiresDate: 1_770_000_000_000, renewalDate: 1_771_000_000_000),
                          "a": ObservedRenewalInfo(originalTransactionId: "9", productId: "r", autoRenewStatus: 0, autoRenewProductId: "r")],
            eligibleForIntroOffer: ["VIP": false, "Basic": true], displayPrice: ["p": "¥600", awkward: awkward],
            introductoryOffer: ["p": "none", "q": "payUpFront"], serverNotifications: true, transactionIds: ["1", "2"],
            signedData: [SignedItem(kind: "transaction", jws: "eyJh.eyJi.c2ln"), SignedItem(kind: "notification", jws: awkward)],
            message: awkward, storeTime: -1)
        observation.notObserved = ["entitlements"]
        observation.storeMessage = "sandbox:3 renews a subscription at most 12 times; auto-renew stopped"
        observation.conflicts = ["the tester saw [\"pro\"]; the App Store Server API has no transaction", awkward]
        observation.server = ServerExchange(
            deliveries: [NotificationDelivery(notificationUUID: "u", notificationType: "REFUND", subtype: awkward, signedDate: 5, account: "fresh",
                                              origin: "signingFault", fault: "wrongChain", signedPayload: "a.b.c",
                                              attempts: [DeliveryAttempt(attemptDate: 5, sendAttemptResult: "TIMED_OUT", httpStatus: 503, detail: awkward)])],
            accessQueries: [AccessQuery(url: "http://127.0.0.1:1/a?b=c", originalTransactionId: "1", httpStatus: 200, access: ["pro"], detail: awkward)],
            appAccess: ["pro", awkward])
        let step = Step(action: .purchase, product: "p", outcome: .interrupted, quantity: 3, offer: "introductory",
                        appAccountToken: "7e3fb20b-4cdb-47cc-936d-99d65f608138", count: 2, by: ISO8601Duration(months: 1, days: 2),
                        to: .gracePeriodEnd, account: "organizer", device: "iPad", terminate: .beforeFinish, gracePeriod: false,
                        reason: 1, price: "5.99", extendByDays: 30, failNext: FailNext(call: .verification, error: "invalidSignature"),
                        expect: expectation, note: awkward)
        return EvidenceRecord(
            run: "run", seq: Int.max, environment: "local", build: awkward, device: "d", os: "o",
            account: AccountRef(alias: "fresh", state: awkward, hash: "abc"), case: "case/1", kind: "refund", step: 0,
            action: step, product: "p", expected: expectation, observed: observation, verdict: .fail, reason: awkward,
            wallStart: "2026-01-15T10:00:00.000Z", wallEnd: "2026-01-15T10:00:00.250Z", storeTime: Int64.min,
            modelledWallTimeMs: 180_000, clock: "sandbox:3", appFault: "ignoresRevocation", environmentLimit: "renewalLimit")
    }

    @Test("A record with every field set, and awkward text and keys, encodes as JSONEncoder encodes it")
    func fullRecord() throws {
        let record = Self.full
        #expect(String(decoding: EvidenceLine.encode(record), as: UTF8.self)
            == String(decoding: try ReferenceEncoder.encode(record), as: UTF8.self))
    }

    @Test("Every sample record encodes as JSONEncoder encodes it")
    func sampleRecords() throws {
        for record in SampleRun.records {
            #expect(EvidenceLine.encode(record) == [UInt8](try ReferenceEncoder.encode(record)), "\(record.case) #\(record.step)")
        }
    }

    @Test("A record with only the required fields encodes as JSONEncoder encodes it")
    func minimalRecord() throws {
        let record = EvidenceRecord(run: "", seq: 0, environment: "", build: "", device: "", os: "", account: AccountRef(alias: "", state: ""),
                                    case: "", kind: "", step: 0, action: Step(action: .observe), product: nil, expected: Expectation(),
                                    observed: Observation(), verdict: .blocked, reason: nil, wallStart: "", wallEnd: "", storeTime: nil)
        #expect(EvidenceLine.encode(record) == [UInt8](try ReferenceEncoder.encode(record)))
    }

    /// The stored properties of `value` beside the keys its JSON object has.
    private func fieldCount(_ value: Any) -> Int { Mirror(reflecting: value).children.count }

    @Test("The encoding writes every stored property of every type in a record (a new field must be added to EvidenceLine)")
    func everyField() throws {
        let record = Self.full
        let json = try #require(try JSONSerialization.jsonObject(with: Data(EvidenceLine.encode(record))) as? [String: Any])
        let observed = try #require(json["observed"] as? [String: Any])
        let action = try #require(json["action"] as? [String: Any])
        let expected = try #require(json["expected"] as? [String: Any])
        let observation = try #require(record.observed)
        let expectation = try #require(record.expected)
        let pairs: [(Any, [String: Any]?)] = [
            (record, json),
            (record.account, json["account"] as? [String: Any]),
            (record.action, action),
            (expectation, expected),
            (try #require(expectation.transaction), expected["transaction"] as? [String: Any]),
            (try #require(expectation.renewalInfo), expected["renewalInfo"] as? [String: Any]),
            (observation, observed),
            (observation.transactions[0], (observed["transactions"] as? [[String: Any]])?.first),
            (try #require(observation.renewalInfo["VIP"]), (observed["renewalInfo"] as? [String: Any])?["VIP"] as? [String: Any]),
            (observation.signedData[0], (observed["signedData"] as? [[String: Any]])?.first),
            (try #require(observation.server), observed["server"] as? [String: Any]),
            (try #require(observation.server?.deliveries.first), ((observed["server"] as? [String: Any])?["deliveries"] as? [[String: Any]])?.first),
            (try #require(observation.server?.deliveries.first?.attempts.first),
             ((((observed["server"] as? [String: Any])?["deliveries"] as? [[String: Any]])?.first)?["attempts"] as? [[String: Any]])?.first),
            (try #require(observation.server?.accessQueries.first),
             ((observed["server"] as? [String: Any])?["accessQueries"] as? [[String: Any]])?.first),
        ]
        for (value, object) in pairs {
            #expect(object?.count == fieldCount(value), "\(type(of: value)): \(object?.keys.sorted() ?? [])")
        }
    }

    @Test("A character that needs escaping is escaped at every position of strings up to 24 bytes long",
          arguments: ["\"", "\\", "\n", "\u{0}", "\u{1F}", "é", "\u{7F}", "/"])
    func escapeAtEveryPosition(special: String) throws {
        for length in 1...24 {
            for position in 0..<length {
                let text = String(repeating: "a", count: position) + special + String(repeating: "b", count: length - position - 1)
                var json = CompactJSONWriter()
                json.string(text)
                #expect(json.bytes == [UInt8](try ReferenceEncoder.encode(text)), "\(length) \(position)")
            }
        }
    }
}
