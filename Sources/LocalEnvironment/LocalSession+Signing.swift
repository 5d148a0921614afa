import Foundation
import AppStoreModels
import MatrixModel
import StoreSimulator

extension LocalSession {
    /// Signs the transactions a step touched, their subscriptions' renewal info, and the notifications it sent.
    /// Payload shapes: Apple's JWSTransactionDecodedPayload, JWSRenewalInfoDecodedPayload and
    /// ResponseBodyV2DecodedPayload.
    ///
    /// Everything a step signs has the same `signedDate` (the store's clock does not move while it signs), so a
    /// transaction or renewal info that a notification embeds is the very JWS signed for the step, not a second
    /// signature of the same payload.
    /// Apple: https://developer.apple.com/documentation/appstoreservernotifications/responsebodyv2decodedpayload
    func sign(touched: [String], notifications: [StoreNotification]) -> [SignedItem] {
        guard let signer else { return [] }
        var signed = SignedThisStep()
        var items: [SignedItem] = []
        var groups: [String] = []
        for id in touched {
            guard let transaction = store.transaction(id), let jws = signedTransaction(transaction, signer, &signed) else { continue }
            items.append(SignedItem(kind: "transaction", jws: jws))
            if let group = transaction.subscriptionGroupIdentifier, !groups.contains(group) { groups.append(group) }
        }
        for group in groups {
            guard let transaction = touched.compactMap({ store.transaction($0) }).first(where: { $0.subscriptionGroupIdentifier == group }),
                  let jws = signedRenewalInfo(account: transaction.account, groupID: group, signer, &signed) else { continue }
            items.append(SignedItem(kind: "renewalInfo", jws: jws))
        }
        for notification in notifications {
            if let jws = signedNotification(notification, signer, &signed) {
                items.append(SignedItem(kind: "notification", jws: jws))
            }
        }
        return items
    }

    /// What one step has signed so far, by transaction id and by account and subscription group.
    struct SignedThisStep {
        var transactions: [String: String] = [:]
        var renewalInfos: [AppStoreSimulator.SubscriptionKey: String] = [:]
    }

    /// Signs a payload's compact JSON; `nil` when signing fails.
    func sign(_ payload: [UInt8], _ signer: any PayloadSigner) -> String? {
        try? signer.sign(Data(payload))
    }

    func signedTransaction(_ transaction: StoreTransaction, _ signer: any PayloadSigner, _ signed: inout SignedThisStep) -> String? {
        if let jws = signed.transactions[transaction.transactionId] { return jws }
        let payload = transaction.payload(bundleId: store.configuration.bundleId, environment: store.configuration.signedEnvironment.rawValue,
                                          signedDate: store.now)
        let jws = sign(payload.compactJSON, signer)
        signed.transactions[transaction.transactionId] = jws
        return jws
    }

    func signedRenewalInfo(account: String, groupID: String, _ signer: any PayloadSigner, _ signed: inout SignedThisStep) -> String? {
        let key = AppStoreSimulator.SubscriptionKey(account: account, groupID: groupID)
        if let jws = signed.renewalInfos[key] { return jws }
        guard let sub = store.subscriptions[key] else { return nil }
        let price = store.catalog.product(sub.autoRenewProductId)?.priceMilliunits ?? 0
        let payload = sub.payload(environment: store.configuration.signedEnvironment.rawValue, signedDate: store.now, renewalPrice: price,
                                  currency: store.configuration.currencyAndStorefrontId.currency)
        let jws = sign(payload.compactJSON, signer)
        signed.renewalInfos[key] = jws
        return jws
    }

    func signedNotification(_ notification: StoreNotification, _ signer: any PayloadSigner, _ signed: inout SignedThisStep) -> String? {
        var data = ResponseBodyV2DecodedPayload.NotificationData()
        data.appAppleId = store.configuration.appAppleId
        data.bundleId = store.configuration.bundleId
        data.bundleVersion = "1"
        data.environment = store.configuration.signedEnvironment.rawValue
        if let id = notification.transactionId, let transaction = store.transaction(id) {
            data.signedTransactionInfo = signedTransaction(transaction, signer, &signed)
        }
        if let group = notification.groupID {
            data.signedRenewalInfo = signedRenewalInfo(account: notification.account, groupID: group, signer, &signed)
            data.status = store.subscriptions[AppStoreSimulator.SubscriptionKey(account: notification.account, groupID: group)]?.state.statusCode
        }
        var payload = ResponseBodyV2DecodedPayload()
        payload.notificationType = notification.notificationType
        payload.subtype = notification.subtype
        payload.notificationUUID = notification.notificationUUID
        payload.data = data
        payload.version = "2.0"
        payload.signedDate = MillisecondsDate(notification.signedDate)
        return sign(payload.compactJSON, signer)
    }
}
