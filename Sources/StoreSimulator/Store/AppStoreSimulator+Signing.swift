import Foundation
import AppStoreModels
import MatrixModel

extension AppStoreSimulator {
    /// Signs the transactions a step touched, their subscriptions' renewal info, and the notifications it sent.
    /// Payload shapes: Apple's JWSTransactionDecodedPayload, JWSRenewalInfoDecodedPayload and
    /// ResponseBodyV2DecodedPayload.
    ///
    /// Transactions and renewal info are signed as they are at the end of the step, at the store's time then.
    /// Each notification embeds the transaction and renewal info as they were at its own event, signed at its
    /// time: a notification sent at the end of the step embeds the very JWS signed for the step (a payload is
    /// signed once per step), one sent earlier in the step (the first of twelve renewals) its own snapshot.
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

    /// What one step has signed so far, by payload: a payload is signed once per step.
    public struct SignedThisStep {
        public init() {}

        var byPayload: [PayloadKey: String] = [:]
    }

    /// A payload as a dictionary key, hashed in bulk and once: `[UInt8]` keys hash kilobytes of payload a byte at
    /// a time (about 8 % of a signed run's CPU time), and a lookup followed by an insert would hash it twice.
    struct PayloadKey: Hashable {
        let bytes: [UInt8]
        let hashOfBytes: Int

        init(bytes: [UInt8]) {
            self.bytes = bytes
            var hasher = Hasher()
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
            hashOfBytes = hasher.finalize()
        }

        static func == (a: PayloadKey, b: PayloadKey) -> Bool {
            a.hashOfBytes == b.hashOfBytes && a.bytes == b.bytes
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(hashOfBytes)
        }
    }

    /// Signs a payload's compact JSON, once per step.
    /// - Parameter what: names the payload in the error (made only when signing fails).
    /// - Throws: ``SigningFailure`` naming what could not be signed and why.
    func sign(_ payload: [UInt8], _ signer: any PayloadSigner, what: @autoclosure () -> String, _ signed: inout SignedThisStep) throws(SigningFailure) -> String {
        let key = PayloadKey(bytes: payload)
        if let jws = signed.byPayload[key] { return jws }
        let jws = try sign(payload, signer, what: what())
        signed.byPayload[key] = jws
        return jws
    }

    /// Signs a payload no other item of the step can have: a notification's, which holds its own UUID (hashing
    /// its kilobytes of nested JWS for the step's cache would find nothing).
    /// - Throws: ``SigningFailure`` naming what could not be signed and why.
    func sign(_ payload: [UInt8], _ signer: any PayloadSigner, what: @autoclosure () -> String) throws(SigningFailure) -> String {
        do {
            return try signer.sign(Data(payload))
        } catch {
            throw SigningFailure(message: "cannot sign the \(what()): \(error)")
        }
    }

    /// Signs a transaction as it is now.
    public func signedTransaction(_ transaction: StoreTransaction, _ signer: any PayloadSigner, _ signed: inout SignedThisStep) throws(SigningFailure) -> String {
        let payload = transaction.payload(bundleId: configuration.bundleId, environment: configuration.signedEnvironment.rawValue,
                                          signedDate: now)
        return try sign(payload.compactJSON, signer, what: "transaction \(transaction.transactionId)", &signed)
    }

    /// Signs an account's renewal info in a group as it is now; `nil` when the account never subscribed there.
    public func signedRenewalInfo(account: String, groupID: String, _ signer: any PayloadSigner, _ signed: inout SignedThisStep) throws(SigningFailure) -> String? {
        guard let snapshot = renewalInfoSnapshot(SubscriptionKey(account: account, groupID: groupID)) else { return nil }
        let payload = snapshot.payload(environment: configuration.signedEnvironment.rawValue, signedDate: now,
                                       currency: configuration.currencyAndStorefrontId.currency)
        return try sign(payload.compactJSON, signer, what: "renewal info of \(account) in group \(groupID)", &signed)
    }

    func signedNotification(_ notification: StoreNotification, _ signer: any PayloadSigner, _ signed: inout SignedThisStep) throws(SigningFailure) -> String {
        var payload = ResponseBodyV2DecodedPayload()
        payload.notificationType = notification.notificationType
        payload.subtype = notification.subtype
        payload.notificationUUID = notification.notificationUUID
        payload.version = "2.0"
        payload.signedDate = MillisecondsDate(notification.signedDate)
        let environment = configuration.signedEnvironment.rawValue
        if let summary = notification.summary {
            // RENEWAL_EXTENSION / SUMMARY carries a summary instead of data.
            // Apple: https://developer.apple.com/documentation/appstoreservernotifications/summary
            var body = ResponseBodyV2DecodedPayload.Summary()
            body.requestIdentifier = summary.requestIdentifier
            body.environment = environment
            body.appAppleId = configuration.appAppleId
            body.bundleId = configuration.bundleId
            body.productId = summary.productId
            body.storefrontCountryCodes = summary.storefrontCountryCodes
            body.succeededCount = Int64(summary.succeededCount)
            body.failedCount = Int64(summary.failedCount)
            payload.summary = body
        } else {
            var data = ResponseBodyV2DecodedPayload.NotificationData()
            data.appAppleId = configuration.appAppleId
            data.bundleId = configuration.bundleId
            data.bundleVersion = "1"
            data.environment = environment
            data.consumptionRequestReason = notification.consumptionRequestReason
            if let transaction = notification.transaction {
                let inner = transaction.payload(bundleId: configuration.bundleId, environment: environment, signedDate: notification.signedDate)
                data.signedTransactionInfo = try sign(inner.compactJSON, signer, what: "transaction \(transaction.transactionId)", &signed)
            }
            if let info = notification.renewalInfo {
                let inner = info.payload(environment: environment, signedDate: notification.signedDate,
                                         currency: configuration.currencyAndStorefrontId.currency)
                data.signedRenewalInfo = try sign(inner.compactJSON, signer, what: "renewal info of \(notification.account)", &signed)
            }
            data.status = notification.status
            payload.data = data
        }
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
