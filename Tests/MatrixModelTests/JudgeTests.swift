import Foundation
import Testing
import MatrixModel

/// Swift Testing has an `Expectation` type too.
private typealias Expectation = MatrixModel.Expectation

private let groups = ["com.example.vip.monthly": "VIP", "com.example.vip.yearly": "VIP"]

/// The differences as sentences, with the sample group mapping.
private func judge(_ expectation: Expectation, _ observation: Observation, stepProduct: String? = nil) -> [String] {
    Judge.differences(expectation, observation, stepProduct: stepProduct, groupOf: { groups[$0] }).map(\.sentence)
}

private func transaction(_ productId: String, id: String = "1", revoked: Bool = false, reason: String? = "PURCHASE",
                         offerType: Int? = nil) -> ObservedTransaction {
    ObservedTransaction(transactionId: id, originalTransactionId: id, productId: productId, purchaseDate: 1_700_000_000_000,
                        revocationDate: revoked ? 1_700_000_100_000 : nil, revocationReason: revoked ? 0 : nil,
                        transactionReason: reason, offerType: offerType)
}

@Suite("Judge")
struct JudgeTests {
    @Test("an empty expectation judges nothing")
    func emptyExpectation() {
        #expect(judge(Expectation(), Observation(access: ["pro"], result: "success", notifications: ["REFUND"], renewals: 4)) == [])
    }

    @Test("access and entitlements compare as sets, in any order")
    func sets() {
        let observation = Observation(access: ["pro", "vip"], entitlements: ["b", "a"])
        #expect(judge(Expectation(access: ["vip", "pro"], entitlements: ["a", "b"]), observation) == [])
        #expect(judge(Expectation(access: ["vip", "pro", "pro"]), observation) == [])
        #expect(judge(Expectation(access: ["vip"], entitlements: []), observation) == [
            #"access: expected ["vip"], observed ["pro", "vip"]"#,
            #"entitlements: expected [], observed ["a", "b"]"#,
        ])
        #expect(judge(Expectation(access: []), Observation()) == [])
    }

    @Test("notifications compare as multisets: order does not matter, counts do")
    func notifications() {
        let observation = Observation(notifications: ["DID_RENEW", "SUBSCRIBED/RESUBSCRIBE", "DID_RENEW"])
        #expect(judge(Expectation(notifications: ["DID_RENEW", "DID_RENEW", "SUBSCRIBED/RESUBSCRIBE"]), observation) == [])
        #expect(judge(Expectation(notifications: ["DID_RENEW", "SUBSCRIBED/RESUBSCRIBE"]), observation) == [
            #"notifications: expected ["DID_RENEW", "SUBSCRIBED/RESUBSCRIBE"], observed ["DID_RENEW", "SUBSCRIBED/RESUBSCRIBE", "DID_RENEW"]"#,
        ])
        #expect(judge(Expectation(notifications: []), observation).count == 1)
        #expect(judge(Expectation(notifications: []), Observation()) == [])
    }

    @Test("a result the step did not produce is observed as none")
    func result() {
        #expect(judge(Expectation(result: "success"), Observation(result: "success")) == [])
        #expect(judge(Expectation(result: "pending"), Observation(result: "success")) == ["result: expected pending, observed success"])
        #expect(judge(Expectation(result: "success"), Observation()) == ["result: expected success, observed none"])
    }

    @Test("subscription status per group; a group never subscribed to is none")
    func subscriptionStatus() {
        let observation = Observation(subscriptionStatus: ["VIP": "inGracePeriod"])
        #expect(judge(Expectation(subscriptionStatus: ["VIP": "inGracePeriod", "Plus": "none"]), observation) == [])
        #expect(judge(Expectation(subscriptionStatus: ["VIP": "subscribed", "Plus": "expired"]), observation) == [
            "subscriptionStatus.Plus: expected expired, observed none",
            "subscriptionStatus.VIP: expected subscribed, observed inGracePeriod",
        ])
    }

    @Test("balances default to 0")
    func balances() {
        #expect(judge(Expectation(balance: ["coins": 0]), Observation()) == [])
        #expect(judge(Expectation(balance: ["coins": 100, "gems": 0]), Observation(balance: ["coins": 100, "gems": 5])) == [
            "balance.gems: expected 0, observed 5",
        ])
        #expect(judge(Expectation(balance: ["coins": 300]), Observation()) == ["balance.coins: expected 300, observed 0"])
    }

    @Test("renewals compare exactly")
    func renewals() {
        #expect(judge(Expectation(renewals: 0), Observation()) == [])
        #expect(judge(Expectation(renewals: 12), Observation(renewals: 11)) == ["renewals: expected 12, observed 11"])
    }

    @Test("a transaction expectation reads the latest transaction of the step's product")
    func transactionOfStepProduct() {
        let observation = Observation(transactions: [
            transaction("com.example.vip.monthly", id: "1", offerType: 1),
            transaction("com.example.pro", id: "2"),
            transaction("com.example.vip.monthly", id: "3", revoked: true, reason: "RENEWAL"),
        ])
        let revoked = Expectation(transaction: TransactionExpectation(revoked: true, revocationReason: 0, transactionReason: "RENEWAL"))
        #expect(judge(revoked, observation, stepProduct: "com.example.vip.monthly") == [])
        let wrong = Expectation(transaction: TransactionExpectation(inAppOwnershipType: "FAMILY_SHARED", isUpgraded: true, revoked: false,
                                                                    revocationReason: 1, offerType: 1))
        #expect(judge(wrong, observation, stepProduct: "com.example.vip.monthly") == [
            "transaction[com.example.vip.monthly].inAppOwnershipType: expected FAMILY_SHARED, observed PURCHASED",
            "transaction[com.example.vip.monthly].isUpgraded: expected true, observed false",
            "transaction[com.example.vip.monthly].revoked: expected false, observed true",
            "transaction[com.example.vip.monthly].revocationReason: expected 1, observed 0",
            "transaction[com.example.vip.monthly].offerType: expected 1, observed none",
        ])
        // The expectation's own product wins over the step's.
        #expect(judge(Expectation(transaction: TransactionExpectation(product: "com.example.pro", revoked: false)), observation,
                      stepProduct: "com.example.vip.monthly") == [])
    }

    @Test("a missing transaction is one difference")
    func missingTransaction() {
        let observation = Observation(transactions: [transaction("com.example.pro")])
        #expect(judge(Expectation(transaction: TransactionExpectation(revoked: true)), observation, stepProduct: "com.example.vip.yearly")
                == ["transaction[com.example.vip.yearly]: expected a transaction, observed none"])
        #expect(judge(Expectation(transaction: TransactionExpectation()), Observation(), stepProduct: "com.example.pro")
                == ["transaction[com.example.pro]: expected a transaction, observed none"])
    }

    @Test("renewal info is found by the expectation's group, else the step product's group")
    func renewalInfo() {
        let info = ObservedRenewalInfo(originalTransactionId: "1", productId: "com.example.vip.monthly", autoRenewStatus: 0,
                                       autoRenewProductId: "com.example.vip.yearly", expirationIntent: 1)
        let observation = Observation(renewalInfo: ["VIP": info])
        let matching = Expectation(renewalInfo: RenewalInfoExpectation(autoRenewStatus: 0, autoRenewProductId: "com.example.vip.yearly",
                                                                        expirationIntent: 1, isInBillingRetryPeriod: false))
        #expect(judge(matching, observation, stepProduct: "com.example.vip.monthly") == [])
        let different = Expectation(renewalInfo: RenewalInfoExpectation(group: "VIP", autoRenewStatus: 1,
                                                                         autoRenewProductId: "com.example.vip.monthly",
                                                                         expirationIntent: 2, isInBillingRetryPeriod: true))
        #expect(judge(different, observation) == [
            "renewalInfo[VIP].autoRenewStatus: expected 1, observed 0",
            "renewalInfo[VIP].autoRenewProductId: expected com.example.vip.monthly, observed com.example.vip.yearly",
            "renewalInfo[VIP].expirationIntent: expected 2, observed 1",
            "renewalInfo[VIP].isInBillingRetryPeriod: expected true, observed false",
        ])
        #expect(judge(Expectation(renewalInfo: RenewalInfoExpectation(group: "Plus", autoRenewStatus: 1)), observation)
                == ["renewalInfo[Plus]: expected renewal info, observed none"])
    }

    // "Charged = shown" is a classic bug: the price charged (milliunits and currency, as App Store data writes them)
    // and the price the app shows are expectations of their own.
    // Apple: https://developer.apple.com/documentation/appstoreserverapi/price,
    // https://developer.apple.com/documentation/appstoreserverapi/currency,
    // https://developer.apple.com/documentation/storekit/product/displayprice
    @Test("the price charged, its currency and the price the app shows are judged; a price the app does not show is none (price, currency, displayprice)")
    func priceCurrencyAndDisplayPrice() {
        var charged = transaction("com.example.vip.monthly")
        charged.price = 4990
        charged.currency = "GBP"
        let observation = Observation(transactions: [charged], displayPrice: ["com.example.vip.monthly": "£4.99"])
        let right = Expectation(transaction: TransactionExpectation(price: 4990, currency: "GBP"),
                                displayPrice: ["com.example.vip.monthly": "£4.99"])
        #expect(judge(right, observation, stepProduct: "com.example.vip.monthly") == [])
        let wrong = Expectation(transaction: TransactionExpectation(price: 4990, currency: "USD"),
                                displayPrice: ["com.example.vip.monthly": "$4.99", "com.example.vip.yearly": "$49.99"])
        #expect(judge(wrong, observation, stepProduct: "com.example.vip.monthly") == [
            "displayPrice.com.example.vip.monthly: expected $4.99, observed £4.99",
            "displayPrice.com.example.vip.yearly: expected $49.99, observed none",
            "transaction[com.example.vip.monthly].currency: expected USD, observed GBP",
        ])
        // A free trial charges 0, not "no price".
        #expect(judge(Expectation(transaction: TransactionExpectation(price: 0)), Observation(transactions: [transaction("com.example.pro")]),
                      stepProduct: "com.example.pro") == ["transaction[com.example.pro].price: expected 0, observed none"])
    }

    @Test("displayPrice is not judged where the app does not report the prices it shows")
    func displayPriceNotObserved() {
        let observation = Observation(notObserved: ["displayPrice"])
        #expect(judge(Expectation(displayPrice: ["com.example.pro": "$9.99"]), observation) == [])
        #expect(judge(Expectation(displayPrice: ["com.example.pro": "$9.99"]), Observation()).count == 1)
    }

    // Apple: https://developer.apple.com/documentation/appstoreserverapi/expiresdate
    @Test("expiresAfter compares expiresDate with purchaseDate plus the period on the step's clock (expiresdate)")
    func expiresAfter() {
        var week = transaction("com.example.vip.monthly")
        week.expiresDate = week.purchaseDate + 7 * 86_400_000
        let observation = Observation(transactions: [week])
        let trial = Expectation(transaction: TransactionExpectation(expiresAfter: ISO8601Duration(weeks: 1)))
        #expect(judge(trial, observation, stepProduct: "com.example.vip.monthly") == [])
        let month = Expectation(transaction: TransactionExpectation(expiresAfter: ISO8601Duration(months: 1)))
        let differences = judge(month, observation, stepProduct: "com.example.vip.monthly")
        #expect(differences.count == 1)
        #expect(differences.first?.hasPrefix("transaction[com.example.vip.monthly].expiresAfter: expected P1M") == true)
        #expect(differences.first?.contains("observed 604800000 ms") == true, "\(differences)")
        // On Sandbox's clock at 5 minutes a month, a week lasts 3 minutes (Apple's renewal-time table).
        var compressed = transaction("com.example.vip.monthly")
        compressed.expiresDate = compressed.purchaseDate + 3 * 60_000
        let sandbox = Judge.schedule("sandbox:5", timeRate: nil)
        #expect(Judge.differences(trial, Observation(transactions: [compressed]), stepProduct: "com.example.vip.monthly",
                                  schedule: sandbox, groupOf: { groups[$0] }).isEmpty)
        #expect(judge(trial, Observation(transactions: [compressed]), stepProduct: "com.example.vip.monthly").count == 1)
        var lifetime = transaction("com.example.pro")
        lifetime.expiresDate = nil
        #expect(judge(trial, Observation(transactions: [lifetime]), stepProduct: "com.example.pro").first?.hasSuffix("observed no expiresDate") == true)
    }

    // Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/introductoryoffer
    @Test("a product without an introductory offer is expected as none (introductoryoffer)")
    func introductoryOfferNone() {
        let observation = Observation(introductoryOffer: ["com.example.vip.monthly": "freeTrial", "com.example.vip.yearly": "none"])
        #expect(judge(Expectation(introductoryOffer: ["com.example.vip.monthly": "freeTrial", "com.example.vip.yearly": "none"]), observation) == [])
        #expect(judge(Expectation(introductoryOffer: ["com.example.vip.monthly": "none"]), observation)
                == ["introductoryOffer.com.example.vip.monthly: expected none, observed freeTrial"])
    }

    // Apple: https://developer.apple.com/documentation/appstoreservernotifications/environment
    @Test("that an environment sends no server notifications is judged where the environment can tell (environment)")
    func serverNotifications() {
        #expect(judge(Expectation(serverNotifications: false), Observation(serverNotifications: false)) == [])
        #expect(judge(Expectation(serverNotifications: false), Observation(serverNotifications: true))
                == ["serverNotifications: expected false, observed true"])
        // A driver that cannot tell leaves it out: not judged.
        #expect(judge(Expectation(serverNotifications: true), Observation()) == [])
    }

    @Test("differences keep field, expected and observed apart")
    func differenceParts() throws {
        let difference = try #require(Judge.differences(Expectation(access: ["pro"]), Observation(), stepProduct: nil, groupOf: { _ in nil }).first)
        #expect(difference.field == "access")
        #expect(difference.expected == #"["pro"]"#)
        #expect(difference.observed == "[]")
        #expect(Judge.render([]) == "[]")
        #expect(Judge.render(["a", "b"]) == #"["a", "b"]"#)
    }

    @Test("an observed transaction's dates must lie in 1970 to 9999: Int64.min from hand-edited evidence would overflow the judge's arithmetic")
    func datesOutOfRange() throws {
        let valid = #"{"transactionId":"1","originalTransactionId":"1","productId":"p","purchaseDate":1700000000000,"#
            + #""inAppOwnershipType":"PURCHASED","isUpgraded":false,"quantity":1"#
        let decoded = try JSONDecoder().decode(ObservedTransaction.self, from: Data((valid + "}").utf8))
        #expect(decoded.purchaseDate == 1_700_000_000_000)
        for edit in [#","expiresDate":-9223372036854775808"#, #","revocationDate":9223372036854775807"#] {
            #expect(throws: DecodingError.self) { try JSONDecoder().decode(ObservedTransaction.self, from: Data((valid + edit + "}").utf8)) }
        }
        let minimum = valid.replacingOccurrences(of: "1700000000000", with: "-9223372036854775808") + "}"
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ObservedTransaction.self, from: Data(minimum.utf8)) }
    }
}

@Suite("A pass with nothing observed")
struct NothingObservedTests {
    private func record(_ verdict: Verdict, expected: Expectation?, notObserved: [String]?) -> EvidenceRecord {
        EvidenceRecord(run: "r", seq: 1, environment: "sandbox", build: "1", device: "d", os: "o", account: AccountRef(alias: "a", state: ""),
                       case: "c", kind: "consumable", step: 0, action: Step(action: .purchase, product: "coins"), product: "coins",
                       expected: expected, observed: Observation(notObserved: notObserved), verdict: verdict, reason: nil,
                       wallStart: "", wallEnd: "", storeTime: nil)
    }

    @Test("a guided step expecting only a balance it cannot see passes with nothing observed; one that saw any field of it does not")
    func onlyUnobservedFields() {
        let unobservable = ["balance", "entitlements", "notifications"]
        #expect(record(.pass, expected: Expectation(balance: ["coins": 100]), notObserved: unobservable).passedWithNothingObserved)
        #expect(!record(.pass, expected: Expectation(access: [], balance: ["coins": 100]), notObserved: unobservable).passedWithNothingObserved)
        #expect(!record(.pass, expected: Expectation(balance: ["coins": 100]), notObserved: nil).passedWithNothingObserved)
        #expect(!record(.pass, expected: nil, notObserved: unobservable).passedWithNothingObserved, "counted as without an expectation")
        #expect(!record(.fail, expected: Expectation(balance: ["coins": 100]), notObserved: unobservable).passedWithNothingObserved)
        #expect(RecordedStep(record(.pass, expected: Expectation(balance: ["coins": 1]), notObserved: unobservable)).passedWithNothingObserved,
                "a resumed run counts its recorded steps too")
    }

    @Test("fieldNames names every field an expectation sets, as notObserved names them")
    func fieldNames() {
        #expect(Expectation().fieldNames == [])
        #expect(Expectation(access: [], result: "success", renewals: 1, displayPrice: [:], serverNotifications: true).fieldNames
                == ["access", "result", "renewals", "displayPrice", "serverNotifications"])
    }
}
