import Foundation
import Testing
import AppStoreModels
import TestSupport

/// The payloads the simulator signs are written by hand; the bytes must be exactly `JSONEncoder`'s with sorted
/// keys and unescaped slashes, for every field, so that signatures, evidence and the interop vectors stay the same.
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/jwstransactiondecodedpayload
@Suite("Signed payload JSON")
struct SignedPayloadJSONTests {
    static let awkward = "a \"quoted\" back\\slash / path\n\r\t\u{8}\u{1} é 😀"

    static var fullTransaction: JWSTransactionDecodedPayload {
        var p = JWSTransactionDecodedPayload()
        p.transactionId = "2000000000000002"; p.originalTransactionId = "2000000000000001"; p.webOrderLineItemId = "3"
        p.bundleId = awkward; p.productId = "com.example/pro"; p.subscriptionGroupIdentifier = "21400001"
        p.purchaseDate = 1_767_225_600_000; p.originalPurchaseDate = -1; p.expiresDate = MillisecondsDate(Int64.max)
        p.quantity = Int.max; p.type = "Auto-Renewable Subscription"; p.appAccountToken = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
        p.inAppOwnershipType = "FAMILY_SHARED"; p.signedDate = MillisecondsDate(Int64.min); p.revocationReason = 0
        p.revocationDate = 0; p.revocationType = "REFUND_PRORATED"; p.revocationPercentage = 100_000; p.isUpgraded = false
        p.offerType = 1; p.offerIdentifier = awkward; p.offerDiscountType = "FREE_TRIAL"; p.offerPeriod = "P1W"
        p.environment = "Sandbox"; p.transactionReason = "RENEWAL"; p.storefront = "USA"; p.storefrontId = "143441"
        p.price = -4990; p.currency = "USD"; p.appTransactionId = "704"
        return p
    }

    static var fullRenewalInfo: JWSRenewalInfoDecodedPayload {
        var p = JWSRenewalInfoDecodedPayload()
        p.expirationIntent = 2; p.originalTransactionId = "1"; p.autoRenewProductId = "com.example/pro"; p.productId = awkward
        p.autoRenewStatus = 0; p.isInBillingRetryPeriod = true; p.priceIncreaseStatus = 1; p.gracePeriodExpiresDate = 9
        p.offerType = 4; p.offerIdentifier = "win-back"; p.signedDate = 1_767_225_600_000; p.environment = "Xcode"
        p.recentSubscriptionStartDate = 1; p.renewalDate = 2; p.renewalPrice = Int64.max; p.currency = "EUR"
        p.offerDiscountType = "PAY_AS_YOU_GO"; p.eligibleWinBackOfferIds = ["a", awkward, ""]; p.appAccountToken = ""
        p.appTransactionId = "7"; p.offerPeriod = "P3M"
        return p
    }

    static var fullNotification: ResponseBodyV2DecodedPayload {
        var data = ResponseBodyV2DecodedPayload.NotificationData()
        data.appAppleId = 1_234_567_890; data.bundleId = awkward; data.bundleVersion = "1"; data.environment = "Production"
        data.signedTransactionInfo = "eyJh.eyJi.c2ln"; data.signedRenewalInfo = "eyJj.eyJk.c2ln"; data.status = 3
        data.consumptionRequestReason = "UNINTENDED_PURCHASE"
        var p = ResponseBodyV2DecodedPayload()
        p.notificationType = "DID_RENEW"; p.subtype = "BILLING_RECOVERY"; p.notificationUUID = "002e14d5-51f5-4503-b5a8-c3a1af68eb20"
        p.data = data; p.version = "2.0"; p.signedDate = 1_767_225_600_000
        var summary = ResponseBodyV2DecodedPayload.Summary()
        summary.requestIdentifier = awkward; summary.environment = "Sandbox"; summary.appAppleId = 1; summary.bundleId = "com.example/app"
        summary.productId = "p"; summary.storefrontCountryCodes = ["USA", awkward]; summary.failedCount = 0; summary.succeededCount = Int64.max
        p.summary = summary
        return p
    }

    func expectSame(_ value: some Encodable, _ compact: [UInt8]) throws {
        let expected = try ReferenceEncoder.encode(value)
        #expect(String(decoding: compact, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
    }

    /// Every stored property of `value` appears in its JSON: a field added to the type but not to the writer fails.
    func expectEveryField(_ value: Any, _ compact: [UInt8]) throws {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(compact)) as? [String: Any])
        let properties = Set(Mirror(reflecting: value).children.compactMap(\.label))
        #expect(Set(object.keys) == properties)
    }

    @Test("every field set: the same bytes as JSONEncoder, and no field missing")
    func full() throws {
        try expectSame(Self.fullTransaction, Self.fullTransaction.compactJSON)
        try expectEveryField(Self.fullTransaction, Self.fullTransaction.compactJSON)
        try expectSame(Self.fullRenewalInfo, Self.fullRenewalInfo.compactJSON)
        try expectEveryField(Self.fullRenewalInfo, Self.fullRenewalInfo.compactJSON)
        try expectSame(Self.fullNotification, Self.fullNotification.compactJSON)
        try expectEveryField(Self.fullNotification, Self.fullNotification.compactJSON)
        let data = try #require(Self.fullNotification.data)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(Self.fullNotification.compactJSON)) as? [String: Any])
        let dataObject = try #require(object["data"] as? [String: Any])
        #expect(Set(dataObject.keys) == Set(Mirror(reflecting: data).children.compactMap(\.label)))
        let summary = try #require(Self.fullNotification.summary)
        let summaryObject = try #require(object["summary"] as? [String: Any])
        #expect(Set(summaryObject.keys) == Set(Mirror(reflecting: summary).children.compactMap(\.label)))
    }

    @Test("nothing set: an empty object")
    func empty() throws {
        #expect(JWSTransactionDecodedPayload().compactJSON == Array("{}".utf8))
        #expect(JWSRenewalInfoDecodedPayload().compactJSON == Array("{}".utf8))
        var notification = ResponseBodyV2DecodedPayload()
        #expect(notification.compactJSON == Array("{}".utf8))
        notification.data = .init()
        try expectSame(notification, notification.compactJSON)
    }

    /// Drops fields at random (seeded): the commas between the members that remain are where JSONEncoder puts them.
    @Test("any subset of fields: the same bytes as JSONEncoder")
    func subsets() throws {
        var random = SplitMix64(seed: 20_261_129)
        for _ in 0..<300 {
            var transaction = Self.fullTransaction
            let transactionPaths: [WritableKeyPath<JWSTransactionDecodedPayload, String?>] = [
                \.transactionId, \.originalTransactionId, \.webOrderLineItemId, \.bundleId, \.productId, \.subscriptionGroupIdentifier,
                \.type, \.appAccountToken, \.inAppOwnershipType, \.revocationType, \.offerIdentifier, \.offerDiscountType,
                \.offerPeriod, \.environment, \.transactionReason, \.storefront, \.storefrontId, \.currency, \.appTransactionId]
            for path in transactionPaths where Bool.random(using: &random) { transaction[keyPath: path] = nil }
            let datePaths: [WritableKeyPath<JWSTransactionDecodedPayload, MillisecondsDate?>] = [
                \.purchaseDate, \.originalPurchaseDate, \.expiresDate, \.signedDate, \.revocationDate]
            for path in datePaths where Bool.random(using: &random) { transaction[keyPath: path] = nil }
            if Bool.random(using: &random) { transaction.quantity = nil }
            if Bool.random(using: &random) { transaction.price = nil }
            if Bool.random(using: &random) { transaction.isUpgraded = nil }
            if Bool.random(using: &random) { transaction.offerType = nil }
            try expectSame(transaction, transaction.compactJSON)

            var renewal = Self.fullRenewalInfo
            let renewalPaths: [WritableKeyPath<JWSRenewalInfoDecodedPayload, String?>] = [
                \.originalTransactionId, \.autoRenewProductId, \.productId, \.offerIdentifier, \.environment, \.currency,
                \.offerDiscountType, \.appAccountToken, \.appTransactionId, \.offerPeriod]
            for path in renewalPaths where Bool.random(using: &random) { renewal[keyPath: path] = nil }
            if Bool.random(using: &random) { renewal.eligibleWinBackOfferIds = Bool.random(using: &random) ? nil : [] }
            if Bool.random(using: &random) { renewal.renewalPrice = nil }
            if Bool.random(using: &random) { renewal.autoRenewStatus = nil }
            try expectSame(renewal, renewal.compactJSON)

            var notification = Self.fullNotification
            if Bool.random(using: &random) { notification.subtype = nil }
            if Bool.random(using: &random) { notification.data?.signedRenewalInfo = nil }
            if Bool.random(using: &random) { notification.data?.status = nil }
            if Bool.random(using: &random) { notification.data?.appAppleId = nil }
            if Bool.random(using: &random) { notification.data = nil }
            try expectSame(notification, notification.compactJSON)
        }
    }
}
