import Foundation
import AppStoreModels
import MatrixModel
import StoreSimulator

extension AppStoreSimulator {
    /// The notifications the App Store sent for what the case's accounts owned before the case started (bought a
    /// day before, finished): `SUBSCRIBED/INITIAL_BUY` for a subscription and `ONE_TIME_CHARGE` for anything
    /// else, Family Sharing members' `FAMILY_SHARED` copies included, each signed when it was bought. A local run
    /// has no backend to tell; a backend must know them before the first step asks it for access.
    /// Apple: https://developer.apple.com/documentation/appstoreservernotifications/notificationtype
    func preparedNotifications(identifierSpace: Int64, sign: (Data) throws -> String) throws -> [OutgoingNotification] {
        var result: [OutgoingNotification] = []
        for (number, transaction) in transactions.enumerated() where transaction.purchaseDate < configuration.startTime {
            let signedDate = transaction.purchaseDate
            var data = ResponseBodyV2DecodedPayload.NotificationData()
            data.appAppleId = configuration.appAppleId
            data.bundleId = configuration.bundleId
            data.bundleVersion = "1"
            data.environment = configuration.signedEnvironment.rawValue
            let payload = transaction.payload(bundleId: configuration.bundleId, environment: configuration.signedEnvironment.rawValue,
                                              signedDate: signedDate)
            data.signedTransactionInfo = try sign(Data(payload.compactJSON))
            var type = "ONE_TIME_CHARGE"
            var subtype: String?
            let key = transaction.subscriptionGroupIdentifier.map { SubscriptionKey(account: transaction.account, groupID: $0) }
            // A member's shared subscription beside their own is the shared transaction's subscription.
            let held = key.flatMap { key in
                familySharedSubscriptions[key].flatMap { $0.originalTransactionId == transaction.originalTransactionId ? $0 : nil }
                    ?? subscriptions[key]
            }
            if let held {
                let snapshot = renewalInfoSnapshot(of: held)
                (type, subtype) = ("SUBSCRIBED", "INITIAL_BUY")
                // The renewal info as the store describes it: the next period's price and any offer it carries.
                let renewal = snapshot.payload(environment: configuration.signedEnvironment.rawValue, signedDate: signedDate,
                                               currency: configuration.currencyAndStorefrontId.currency)
                data.signedRenewalInfo = try sign(Data(renewal.compactJSON))
                data.status = snapshot.subscription.state.statusCode
            }
            var body = ResponseBodyV2DecodedPayload()
            body.notificationType = type
            body.subtype = subtype
            // Apart from the store's own UUIDs (…-4…-8…-…) by their fourth group.
            body.notificationUUID = Self.notificationUUID(space: identifierSpace, salt: configuration.identifierSalt, variant: "9", number: number + 1)
            body.data = data
            body.version = "2.0"
            body.signedDate = MillisecondsDate(signedDate)
            result.append(OutgoingNotification(notificationUUID: body.notificationUUID ?? "", notificationType: type, subtype: subtype,
                                               signedDate: signedDate, account: transaction.account, origin: "prepared",
                                               signedPayload: try sign(Data(body.compactJSON))))
        }
        return result
    }
}
