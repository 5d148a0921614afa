import HarnessCore
import MatrixModel
import Testing
import Threading

/// The mapping from matrix actions to the App Store's calls, written once for the simulator and for
/// `SKTestSession`: each action makes exactly its call, with the step's parameters and defaults.
@Suite("App Store side: one mapping from actions to store calls")
struct AppStoreSideTests {
    /// Records each call as text.
    final class Recorder: AppStoreSide {
        let calls = Locked<[String]>([])
        func note(_ call: String) -> [String] {
            calls.withLock { $0.append(call) }
            return ["t"]
        }

        func approveAskToBuy(account: String, productID: String?) -> [String] { note("approveAskToBuy \(account) \(productID ?? "-")") }
        func declineAskToBuy(account: String, productID: String?) { _ = note("declineAskToBuy \(account) \(productID ?? "-")") }
        func resolveIssue(account: String, productID: String?) -> [String] { note("resolveIssue \(account) \(productID ?? "-")") }
        func purchaseOutsideApp(account: String, productID: String, quantity: Int, offer: String?) -> [String] {
            note("purchaseOutsideApp \(account) \(productID) \(quantity) \(offer ?? "-")")
        }
        func renew(account: String, productID: String?, count: Int) { _ = note("renew \(account) \(productID ?? "-") \(count)") }
        func advanceTime(by duration: ISO8601Duration) { _ = note("advanceTime by \(duration)") }
        func advanceTime(to point: TimePoint, account: String, productID: String?) {
            _ = note("advanceTime to \(point.rawValue) \(account) \(productID ?? "-")")
        }
        func setAutoRenew(_ willRenew: Bool, account: String, productID: String?) { _ = note("setAutoRenew \(willRenew) \(account) \(productID ?? "-")") }
        func expire(account: String, productID: String?) { _ = note("expire \(account) \(productID ?? "-")") }
        func failNextRenewal(account: String, productID: String?, gracePeriod: Bool?) {
            _ = note("failNextRenewal \(account) \(productID ?? "-") \(gracePeriod.map(String.init) ?? "-")")
        }
        func recoverBilling(account: String, productID: String?) -> [String] { note("recoverBilling \(account) \(productID ?? "-")") }
        func refund(account: String, productID: String, reason: Int) -> [String] { note("refund \(account) \(productID) \(reason)") }
        func declineRefund(account: String, productID: String) { _ = note("declineRefund \(account) \(productID)") }
        func reverseRefund(account: String, productID: String) { _ = note("reverseRefund \(account) \(productID)") }
        func revokeFamilySharing(member: String, productID: String?) { _ = note("revokeFamilySharing \(member) \(productID ?? "-")") }
        func requestPriceIncrease(account: String, productID: String?, price: String) {
            _ = note("requestPriceIncrease \(account) \(productID ?? "-") \(price)")
        }
        func respondToPriceIncrease(consent: Bool, account: String, productID: String?) {
            _ = note("respondToPriceIncrease \(consent) \(account) \(productID ?? "-")")
        }
        func removeFromSale(productID: String) { _ = note("removeFromSale \(productID)") }
        func requestRefund(account: String, productID: String) { _ = note("requestRefund \(account) \(productID)") }
        func extendRenewalDate(account: String, productID: String?, days: Int) -> [String] {
            note("extendRenewalDate \(account) \(productID ?? "-") \(days)")
        }
        func extendRenewalDatesForAllSubscribers(productID: String, days: Int, account: String) -> [String] {
            note("extendRenewalDatesForAllSubscribers \(account) \(productID) \(days)")
        }
        func requestTestNotification(account: String) { _ = note("requestTestNotification \(account)") }
    }

    /// Every action, with the call it makes (`nil`: the app's side or a look, no store call).
    static let expected: [(Step, String?)] = [
        (Step(action: .launch), nil), (Step(action: .relaunch), nil), (Step(action: .quit), nil), (Step(action: .reinstall), nil),
        (Step(action: .switchDevice, device: "iPad"), nil), (Step(action: .purchase, product: "p"), nil), (Step(action: .restore), nil),
        (Step(action: .observe), nil),
        (Step(action: .approveAskToBuy, product: "p"), "approveAskToBuy a p"),
        (Step(action: .declineAskToBuy), "declineAskToBuy a -"),
        (Step(action: .resolveIssue, product: "p"), "resolveIssue a p"),
        (Step(action: .purchaseOutsideApp, product: "c", quantity: 3, offer: "o"), "purchaseOutsideApp a c 3 o"),
        (Step(action: .purchaseOutsideApp, product: "c"), "purchaseOutsideApp a c 1 -"),
        (Step(action: .renew, product: "m"), "renew a m 1"),
        (Step(action: .renew, count: 12), "renew a - 12"),
        (Step(action: .advanceTime, by: ISO8601Duration(days: 3)), "advanceTime by P3D"),
        (Step(action: .advanceTime, product: "m", to: .gracePeriodEnd), "advanceTime to gracePeriodEnd a m"),
        (Step(action: .disableAutoRenew, product: "m"), "setAutoRenew false a m"),
        (Step(action: .enableAutoRenew), "setAutoRenew true a -"),
        (Step(action: .expire, product: "m"), "expire a m"),
        (Step(action: .failRenewal, gracePeriod: true), "failNextRenewal a - true"),
        (Step(action: .failRenewal, product: "m"), "failNextRenewal a m -"),
        (Step(action: .recoverBilling), "recoverBilling a -"),
        (Step(action: .refund, product: "p", reason: 1), "refund a p 1"),
        (Step(action: .refund, product: "p"), "refund a p 0"),
        (Step(action: .declineRefund, product: "p"), "declineRefund a p"),
        (Step(action: .reverseRefund, product: "p"), "reverseRefund a p"),
        (Step(action: .revokeFamilySharing, product: "p"), "revokeFamilySharing a p"),
        (Step(action: .requestPriceIncrease, product: "m", price: "5.99"), "requestPriceIncrease a m 5.99"),
        (Step(action: .consentToPriceIncrease), "respondToPriceIncrease true a -"),
        (Step(action: .declinePriceIncrease, product: "m"), "respondToPriceIncrease false a m"),
        (Step(action: .removeFromSale, product: "p"), "removeFromSale p"),
        (Step(action: .requestRefund, product: "p"), "requestRefund a p"),
        (Step(action: .extendRenewalDate, product: "m", extendByDays: 30), "extendRenewalDate a m 30"),
        (Step(action: .extendRenewalDatesForAllSubscribers, product: "m", extendByDays: 7), "extendRenewalDatesForAllSubscribers a m 7"),
        (Step(action: .requestTestNotification), "requestTestNotification a"),
    ]

    @Test("every action makes exactly its call with the step's parameters, or none for the app's side")
    func mapping() async throws {
        #expect(Set(Self.expected.map(\.0.action)) == Set(Action.allCases), "the table covers every action")
        for (step, call) in Self.expected {
            let recorder = Recorder()
            _ = try await recorder.perform(step, account: "a")
            #expect(recorder.calls.withLock { $0 } == (call.map { [$0] } ?? []), "\(step.action)")
        }
    }

    @Test("a price increase without its new price is refused, not made at an invented price")
    func priceIncreaseNeedsPrice() async throws {
        let recorder = Recorder()
        await #expect(throws: AppStoreSideUnsupported.self) {
            _ = try await recorder.perform(Step(action: .requestPriceIncrease, product: "m"), account: "a")
        }
        #expect(recorder.calls.withLock { $0 }.isEmpty)
    }

    @Test("the transactions a call reports are the step's: calls that make transactions return them, others none")
    func touched() async throws {
        let recorder = Recorder()
        #expect(try await recorder.perform(Step(action: .refund, product: "p"), account: "a") == ["t"])
        #expect(try await recorder.perform(Step(action: .renew), account: "a") == [])
        #expect(try await recorder.perform(Step(action: .launch), account: "a") == [])
    }
}
