import Foundation
import MatrixModel
import SignedData
import Signing
@testable import SimulatedStoreKit
import StoreSimulator
import TestSupport
import Testing

/// StoreKit 2's documented behaviour, through the look-alike's public API, as app code sees it. Each test names
/// the Apple page its rule comes from.
@Suite("StoreKit 2 look-alike: Apple's rules")
struct StoreKitRulesTests {
    let pro = ExampleMatrix.pro
    let coins = ExampleMatrix.coins
    let monthly = ExampleMatrix.monthly
    let yearly = ExampleMatrix.yearly
    let season = ExampleMatrix.season

    // Apple: https://developer.apple.com/documentation/storekit/product/products(for:)
    @Test("Product.products(for:) returns the catalog's products with their StoreKit fields and leaves out unknown identifiers")
    func products() async throws {
        let store = try LookAlike()
        let device = store.device()
        let products = try await device.run { try await Product.products(for: [monthly, "com.example.unknown", pro, pro]) }
        #expect(products.map(\.id) == [monthly, pro], "unknown identifiers are left out, duplicates answered once")
        let long = Array(repeating: [pro, "com.example.unknown", monthly], count: 10).flatMap { $0 }
        #expect(try await device.run { try await Product.products(for: long) }.map(\.id) == [pro, monthly],
                "a long list too (a set drops its repeats)")
        let subscription = try #require(products.first)
        #expect(subscription.type == .autoRenewable && products[1].type == .nonConsumable)
        #expect(subscription.price == Decimal(string: "4.99") && subscription.displayPrice == "$4.99")
        let info = try #require(subscription.subscription)
        #expect(info.subscriptionGroupID == ExampleMatrix.groupID)
        #expect(info.subscriptionPeriod.unit == .month && info.subscriptionPeriod.value == 1)
        #expect(info.introductoryOffer?.paymentMode == .freeTrial)
        #expect(products[1].subscription == nil)
        #expect(await device.run { await info.isEligibleForIntroOffer })
    }

    @Test("Product.products(for:) answers a price the developer raised after the app loaded the product")
    func productsAfterPriceIncrease() async throws {
        let store = try LookAlike()
        let device = store.device()
        _ = try await device.bought(monthly)
        let before = try #require(try await device.run { try await Product.products(for: [monthly]) }.first)
        #expect(before.displayPrice == "$4.99")
        try store.appStore { try $0.requestPriceIncrease(account: "a", productID: monthly, price: "5.99") }
        let after = try #require(try await device.run { try await Product.products(for: [monthly]) }.first)
        #expect(after.price == Decimal(string: "5.99") && after.displayPrice == "$5.99")
        #expect(after.subscription == before.subscription && after.id == before.id)
        let again = try #require(try await device.run { try await Product.products(for: [monthly]) }.first)
        #expect(again == after)
    }

    @Test("A price in milliunits becomes the very decimal milliunits / 1000 gives", arguments: [
        Int64(0), 1, 5, 10, 99, 100, 990, 1000, 1990, 4990, 9990, 10_000, 12_345, 99_000, 120_000, 999_999_999_999_000, -4990,
    ])
    func decimalPrice(milliunits: Int64) {
        let built = Product.decimal(milliunits: milliunits)
        let divided = Decimal(milliunits) / Decimal(1000)
        #expect(built == divided && built.description == divided.description)
        #expect(built.exponent == divided.exponent && built.significand == divided.significand && built.hashValue == divided.hashValue)
        // The same representation, bit for bit (exponent, length, compactness, mantissa).
        #expect(withUnsafeBytes(of: built) { Array($0) } == withUnsafeBytes(of: divided) { Array($0) })
    }

    // Apple: https://developer.apple.com/documentation/storekit/product/purchase(options:)
    @Test("purchase(options:) returns a verified transaction carrying the options: quantity, app account token")
    func purchaseOptions() async throws {
        let store = try LookAlike()
        let device = store.device()
        let token = UUID(uuidString: "7E3FB20B-4CDB-47CC-936D-99D65F608138")!
        let transaction = try await device.bought(coins, options: [.quantity(3), .appAccountToken(token)])
        #expect(transaction.productID == coins && transaction.productType == .consumable)
        #expect(transaction.purchasedQuantity == 3 && transaction.appAccountToken == token)
        #expect(transaction.ownershipType == .purchased && transaction.reason == .purchase && transaction.environment == .sandbox)
        #expect(transaction.purchaseDate == StoreClockTime.start)
        await #expect(throws: Product.PurchaseError.invalidQuantity) { try await device.buy(pro, options: [.quantity(2)]) }
    }

    // Apple: https://developer.apple.com/documentation/storekit/product/purchaseresult
    @Test("the customer's answer is the PurchaseResult: userCancelled and pending carry no transaction")
    func purchaseResults() async throws {
        let store = try LookAlike()
        let device = store.device()
        device.setNextPurchaseOutcome(.userCancelled)
        guard case .userCancelled = try await device.buy(pro) else { Issue.record("not userCancelled"); return }
        device.setNextPurchaseOutcome(.pending)
        guard case .pending = try await device.buy(pro) else { Issue.record("not pending"); return }
        #expect(await device.productIDs { Transaction.currentEntitlements } == [])
    }

    // Apple: https://developer.apple.com/documentation/storekit/transaction/updates
    @Test("updates: a purchase() result is not re-emitted on the device that made it; the account's other device receives it")
    func updatesSkipThePurchasingDevice() async throws {
        let store = try LookAlike()
        let phone = store.device("iPhone")
        let pad = store.device("iPad")
        var phoneUpdates = await phone.run { Transaction.updates.makeAsyncIterator() }
        var padUpdates = await pad.run { Transaction.updates.makeAsyncIterator() }
        let transaction = try await phone.bought(pro)
        phone.deliverPendingUpdates()
        pad.deliverPendingUpdates()
        #expect(phoneUpdates.nextIfReady() == nil)
        #expect(padUpdates.nextIfReady()?.unsafePayloadValue.id == transaction.id)
    }

    // Apple: https://developer.apple.com/documentation/storekit/transaction/updates,
    // https://developer.apple.com/documentation/storekit/transaction/finish()
    @Test("unfinished transactions arrive on updates once at launch, and again at every launch until finished")
    func unfinishedAtLaunch() async throws {
        let store = try LookAlike()
        let phone = store.device()
        let transaction = try await phone.bought(coins)
        var first = await phone.run { Transaction.updates.makeAsyncIterator() }
        #expect(first.nextIfReady()?.unsafePayloadValue.id == transaction.id)
        #expect(first.nextIfReady() == nil, "once per launch")
        phone.endLaunch()
        var second = await phone.run { Transaction.updates.makeAsyncIterator() }
        #expect(second.nextIfReady()?.unsafePayloadValue.id == transaction.id, "not finished: delivered again")
        await phone.run { await transaction.finish() }
        phone.endLaunch()
        var third = await phone.run { Transaction.updates.makeAsyncIterator() }
        #expect(third.nextIfReady() == nil)
        #expect(await phone.productIDs { Transaction.unfinished } == [])
    }

    // Apple: https://developer.apple.com/documentation/storekit/transaction/updates
    @Test("renewals and refunds made by the App Store arrive on updates of a running app")
    func storeEventsArriveOnUpdates() async throws {
        let store = try LookAlike()
        let phone = store.device()
        var updates = await phone.run { Transaction.updates.makeAsyncIterator() }
        let subscription = try await phone.bought(monthly)
        try store.appStore { try $0.renew(account: "a", productID: monthly, count: 1) }
        phone.deliverPendingUpdates()
        let renewal = try #require(updates.nextIfReady()?.unsafePayloadValue)
        #expect(renewal.reason == .renewal && renewal.originalID == subscription.id && renewal.id != subscription.id)
        _ = try store.appStore { try $0.refund(account: "a", productID: monthly, reason: 1) }
        phone.deliverPendingUpdates()
        let refunded = try #require(updates.nextIfReady()?.unsafePayloadValue)
        #expect(refunded.id == renewal.id && refunded.revocationDate != nil && refunded.revocationReason == .developerIssue)
    }

    // Apple: https://developer.apple.com/documentation/storekit/transaction/currententitlements
    @Test("currentEntitlements: non-consumables, the active subscription's latest transaction, non-renewing; never consumables or refunded")
    func currentEntitlements() async throws {
        let store = try LookAlike()
        let phone = store.device()
        for product in [coins, pro, season, monthly] { _ = try await phone.bought(product) }
        try store.appStore { try $0.renew(account: "a", productID: monthly, count: 2) }
        #expect(Set(await phone.productIDs { Transaction.currentEntitlements }) == [pro, season, monthly])
        let latest = try #require(await phone.run { await Transaction.currentEntitlement(for: monthly) }?.unsafePayloadValue)
        #expect(latest.reason == .renewal, "the latest transaction of the subscription, not its first")
        #expect(await phone.productIDs { Transaction.currentEntitlements(for: monthly) }.count == 1)
        _ = try store.appStore { try $0.refund(account: "a", productID: pro) }
        #expect(Set(await phone.productIDs { Transaction.currentEntitlements }) == [season, monthly])
        #expect(await phone.run { await Transaction.currentEntitlement(for: pro) } == nil)
    }

    // Apple: https://developer.apple.com/documentation/storekit/transaction/all,
    // https://developer.apple.com/documentation/storekit/transaction/latest(for:)
    @Test("Transaction.all and latest(for:) leave out finished consumables; an unfinished one stays")
    func finishedConsumablesLeaveHistory() async throws {
        let store = try LookAlike()
        let phone = store.device()
        let first = try await phone.bought(coins)
        #expect(await phone.productIDs { Transaction.all } == [coins], "unfinished: still in the history")
        await phone.run { await first.finish() }
        #expect(await phone.productIDs { Transaction.all } == [])
        #expect(await phone.run { await Transaction.latest(for: coins) } == nil)
        _ = try await phone.bought(pro)
        #expect(await phone.run { await Transaction.latest(for: pro) }?.unsafePayloadValue.productID == pro)
    }

    // Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/status-swift.property
    @Test("a subscription's status is an array for its group, with state and verified renewal info")
    func status() async throws {
        let store = try LookAlike()
        let phone = store.device()
        _ = try await phone.bought(monthly)
        let statuses = try await phone.run {
            try await Product.products(for: [monthly]).first?.subscription?.status ?? []
        }
        let status = try #require(statuses.first)
        #expect(statuses.count == 1 && status.state == .subscribed)
        let info = try status.renewalInfo.payloadValue
        #expect(info.currentProductID == monthly && info.willAutoRenew)
        #expect(try status.transaction.payloadValue.productID == monthly)
    }

    // Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/status-swift.property ("The array
    // can have more than one subscription status if your subscription supports Family Sharing"),
    // https://developer.apple.com/documentation/storekit/product/subscriptioninfo/status/all
    @Test("a member with a family-shared subscription who buys their own in the group sees both statuses, and both entitlements (status)")
    func familySharedAndOwnStatuses() async throws {
        let store = try LookAlike(accounts: [Account(alias: "member", familyOrganizer: "org"), Account(alias: "org", owns: [monthly])])
        let phone = store.device(account: "member")
        let shared = try await phone.run { try await Product.SubscriptionInfo.status(for: ExampleMatrix.groupID) }
        #expect(try shared.map { try $0.transaction.payloadValue.ownershipType } == [.familyShared])
        _ = try await phone.bought(yearly)
        let statuses = try await phone.run { try await Product.SubscriptionInfo.status(for: ExampleMatrix.groupID) }
        let held = try statuses.map { try $0.transaction.payloadValue }
        // The member's own first, then the one the family shares; both subscribed.
        #expect(held.map(\.productID) == [yearly, monthly])
        #expect(held.map(\.ownershipType) == [.purchased, .familyShared])
        #expect(statuses.map(\.state) == [.subscribed, .subscribed])
        #expect(try statuses.map { try $0.renewalInfo.payloadValue.currentProductID } == [yearly, monthly])
        // currentEntitlements: the latest transaction of each product the customer is entitled to.
        // Apple: https://developer.apple.com/documentation/storekit/transaction/currententitlements
        let entitled = await phone.productIDs { Transaction.currentEntitlements }
        #expect(Set(entitled) == [monthly, yearly])
    }

    // Apple: https://developer.apple.com/documentation/storekit/verificationresult
    @Test("jwsRepresentation is the simulator's ES256 JWS, which SignedDataVerifier accepts with the simulator root")
    func jwsVerifies() async throws {
        let store = try LookAlike(signed: true)
        let phone = store.device()
        guard case .success(let result) = try await phone.buy(monthly) else { Issue.record("not bought"); return }
        let verifier = try SignedDataVerifier(rootCertificates: [SimulatorPKI.default.root], bundleId: "com.example.storekitmatrix",
                                              appAppleId: nil, environment: "Sandbox")
        let verified = try verifier.verifyAndDecodeTransaction(result.jwsRepresentation)
        #expect(verified.fields.bundleId == "com.example.storekitmatrix" && verified.fields.environment == "Sandbox")
        #expect(verified.payload == (try result.payloadValue.jsonRepresentation), "the JWS signs exactly the transaction's JSON")
    }

    // Apple: https://developer.apple.com/documentation/storekit/verificationresult/verificationerror
    @Test("an unverified result carries its VerificationError: payloadValue throws it, unsafePayloadValue still reads")
    func unverified() async throws {
        let store = try LookAlike()
        let phone = store.device()
        phone.failNext(.verification, with: .verification(.invalidSignature))
        guard case .success(let result) = try await phone.buy(pro) else { Issue.record("not bought"); return }
        guard case .unverified(let transaction, let error) = result else { Issue.record("verified"); return }
        #expect(error == .invalidSignature && transaction.productID == pro)
        #expect(throws: VerificationResult<Transaction>.VerificationError.invalidSignature) { try result.payloadValue }
    }

    // Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/iseligibleforintrooffer
    @Test("an introductory offer's eligibility is per subscription group and ends once the group was subscribed")
    func introEligibility() async throws {
        let store = try LookAlike()
        let phone = store.device()
        #expect(await phone.run { await Product.SubscriptionInfo.isEligibleForIntroOffer(for: ExampleMatrix.groupID) })
        _ = try await phone.bought(yearly)
        #expect(await phone.run { await Product.SubscriptionInfo.isEligibleForIntroOffer(for: ExampleMatrix.groupID) } == false)
    }
}

/// The simulated store's clock at the start of a case: 2026-01-01T12:00:00Z.
enum StoreClockTime {
    static let start = Date(timeIntervalSince1970: 1_767_268_800)
}
