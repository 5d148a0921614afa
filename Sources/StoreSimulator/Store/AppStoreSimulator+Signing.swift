import Foundation
import AppStoreModels
import MatrixModel

extension AppStoreSimulator {
    /// Signs the transactions a step touched, their subscriptions' renewal info, and the notifications it sent.
    /// Payload shapes: Apple's JWSTransactionDecodedPayload, JWSRenewalInfoDecodedPayload and
    /// ResponseBodyV2DecodedPayload.
    ///
    /// Everything a step signs has the same `signedDate` (the store's clock does not move while it signs), so a
    /// transaction or renewal info that a notification embeds is the very JWS signed for the step, not a second
    /// signature of the same payload.
    /// Apple: https://developer.apple.com/documentation/appstoreservernotifications/responsebodyv2decodedpayload
    /// - Throws: ``SigningFailure`` when an item cannot be signed: the step is then an `error`, never evidence with
    ///   an item left out.
    public func sign(touched: [String], notifications: [StoreNotification], with signer: any PayloadSigner) throws(SigningFailure) -> [SignedItem] {
        var signed = SignedThisStep()
        var items: [SignedItem] = []
        var groups: [String] = []
        for id in touched {
            guard let transaction = transaction(id) else { continue }
            let jws = try signedTransaction(transaction, signer, &signed)
            items.append(SignedItem(kind: "transaction", jws: jws))
            if let group = transaction.subscriptionGroupIdentifier, !groups.contains(group) { groups.append(group) }
        }
        for group in groups {
            guard let transaction = touched.compactMap({ transaction($0) }).first(where: { $0.subscriptionGroupIdentifier == group }),
                  let jws = try signedRenewalInfo(account: transaction.account, groupID: group, signer, &signed) else { continue }
            items.append(SignedItem(kind: "renewalInfo", jws: jws))
        }
        for notification in notifications {
            items.append(SignedItem(kind: "notification", jws: try signedNotification(notification, signer, &signed)))
        }
        return items
    }

    /// What one step has signed so far, by transaction id and by account and subscription group.
    public struct SignedThisStep {
        public init() {}

        var transactions: [String: String] = [:]
        var renewalInfos: [SubscriptionKey: String] = [:]
    }

    /// Signs a payload's compact JSON.
    /// - Throws: ``SigningFailure`` naming what could not be signed and why.
    func sign(_ payload: [UInt8], _ signer: any PayloadSigner, what: String) throws(SigningFailure) -> String {
        do {
            return try signer.sign(Data(payload))
        } catch {
            throw SigningFailure(message: "cannot sign the \(what): \(error)")
        }
    }

    public func signedTransaction(_ transaction: StoreTransaction, _ signer: any PayloadSigner, _ signed: inout SignedThisStep) throws(SigningFailure) -> String {
        if let jws = signed.transactions[transaction.transactionId] { return jws }
        let payload = transaction.payload(bundleId: configuration.bundleId, environment: configuration.signedEnvironment.rawValue,
                                          signedDate: now)
        let jws = try sign(payload.compactJSON, signer, what: "transaction \(transaction.transactionId)")
        signed.transactions[transaction.transactionId] = jws
        return jws
    }

    public func signedRenewalInfo(account: String, groupID: String, _ signer: any PayloadSigner, _ signed: inout SignedThisStep) throws(SigningFailure) -> String? {
        let key = SubscriptionKey(account: account, groupID: groupID)
        if let jws = signed.renewalInfos[key] { return jws }
        guard let sub = subscriptions[key] else { return nil }
        let price = catalog.product(sub.autoRenewProductId)?.priceMilliunits ?? 0
        let payload = sub.payload(environment: configuration.signedEnvironment.rawValue, signedDate: now, renewalPrice: price,
                                  currency: configuration.currencyAndStorefrontId.currency)
        let jws = try sign(payload.compactJSON, signer, what: "renewal info of \(account) in group \(groupID)")
        signed.renewalInfos[key] = jws
        return jws
    }

    func signedNotification(_ notification: StoreNotification, _ signer: any PayloadSigner, _ signed: inout SignedThisStep) throws(SigningFailure) -> String {
        var data = ResponseBodyV2DecodedPayload.NotificationData()
        data.appAppleId = configuration.appAppleId
        data.bundleId = configuration.bundleId
        data.bundleVersion = "1"
        data.environment = configuration.signedEnvironment.rawValue
        if let id = notification.transactionId, let transaction = transaction(id) {
            data.signedTransactionInfo = try signedTransaction(transaction, signer, &signed)
        }
        if let group = notification.groupID {
            data.signedRenewalInfo = try signedRenewalInfo(account: notification.account, groupID: group, signer, &signed)
            data.status = subscriptions[SubscriptionKey(account: notification.account, groupID: group)]?.state.statusCode
        }
        var payload = ResponseBodyV2DecodedPayload()
        payload.notificationType = notification.notificationType
        payload.subtype = notification.subtype
        payload.notificationUUID = notification.notificationUUID
        payload.data = data
        payload.version = "2.0"
        payload.signedDate = MillisecondsDate(notification.signedDate)
        return try sign(payload.compactJSON, signer, what: "notification \(notification.notificationUUID)")
    }
}

/// Data could not be signed; a step that needed it is recorded as `error` with this message.
public struct SigningFailure: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String

    public init(message: String) {
        self.message = message
    }

    public var description: String { message }
}

/// Signs App Store payloads as compact JWS; the simulator stays free of cryptography.
public protocol PayloadSigner: Sendable {
    /// Signs a JSON payload. - Throws: when signing fails.
    func sign(_ payload: Data) throws -> String
}
