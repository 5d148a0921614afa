import Foundation
import MatrixModel

/// What a case session reads from StoreKit on the device, as the app would: each transaction as its
/// `jsonRepresentation` (the JWS payload's JSON, which `JWSTransactionDecodedPayload` decodes), each renewal
/// info likewise. Apple's StoreKit implements it under StoreKit Testing in Xcode; the look-alike implements it in
/// tests, so everything but the StoreKit calls themselves runs on Linux.
/// Apple: https://developer.apple.com/documentation/storekit/transaction/jsonrepresentation
public protocol StoreKitClient: Sendable {
    /// The verified transactions of `Transaction.currentEntitlements`.
    func currentEntitlements() async -> [Data]
    /// `Transaction.latest(for:)`, verified or not.
    func latestTransaction(for productID: String) async -> Data?
    /// `Transaction.all`.
    func allTransactions() async -> [Data]
    /// How many transactions `Transaction.unfinished` holds.
    func unfinishedCount() async -> Int
    /// `Product.SubscriptionInfo.status(for:)`: each status's state (`subscribed`, `expired`,
    /// `inBillingRetryPeriod`, `inGracePeriod`, `revoked`) and renewal info.
    func statuses(groupID: String) async throws -> [StoreKitStatus]
    /// `Product.SubscriptionInfo.isEligibleForIntroOffer(for:)`.
    func isEligibleForIntroOffer(groupID: String) async -> Bool
    /// Called after each step's actions, before settling: StoreKit delivers on its own (nothing to do); the
    /// look-alike delivers here.
    func deliver() async
    /// The purchase result a StoreKit error that the app's purchase or restore let through stands for, as a
    /// customer would see it: `userCancelled` for `StoreKitError.userCancelled`, `failed` for any other
    /// `StoreKitError` or `Product.PurchaseError`; `nil` for an error that is not StoreKit's (the step errors).
    /// Apple: https://developer.apple.com/documentation/storekit/storekiterror
    func result(of error: any Error) -> String?
}

/// One entry of a subscription group's status.
public struct StoreKitStatus: Sendable, Hashable {
    /// `Product.SubscriptionInfo.RenewalState` by name.
    public var state: String
    /// The renewal info's `jsonRepresentation`, when it verified.
    public var renewalInfo: Data?

    public init(state: String, renewalInfo: Data?) {
        self.state = state
        self.renewalInfo = renewalInfo
    }
}

/// The controls of the environment that the App Store's side does not cover: how the next purchase sheet is
/// answered, and the StoreKit failures a step sets up.
public protocol PurchaseControls: Sendable {
    /// How the customer answers the next purchase sheet. - Throws: `AppStoreSideUnsupported` for an outcome the
    /// environment cannot produce.
    func setNextPurchaseOutcome(_ outcome: PurchaseOutcome) async throws
    /// Makes the step's next call of a kind fail (`failNext`). - Throws: `AppStoreSideUnsupported` when it cannot.
    func failNext(_ failure: FailNext) async throws
    /// Ends the failures set up for a step.
    func clearFailures() async
}
