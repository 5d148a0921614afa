import Foundation
import MatrixModel
import StoreSimulator

extension Product {
    /// Buys the product on the bound device, answered as the customer answers the purchase sheet (the runner sets
    /// it up: confirm, cancel, Ask to Buy, a failure).
    ///
    /// A successful purchase's transaction is returned here and is not emitted again on this device's
    /// `Transaction.updates`; the app must deliver it and call `finish()`.
    ///
    /// An eligible customer gets the subscription's introductory offer by itself; `options` can name a
    /// promotional or win-back offer.
    ///
    /// - Throws: ``PurchaseError`` (`productUnavailable` for a product taken off sale, `invalidQuantity` for a
    ///   quantity below 1 or above 1 for anything but a consumable, `ineligibleForOffer` for a win-back offer
    ///   to a customer who is not a churned subscriber), ``StoreKitError`` (`unknown` for a purchase
    ///   that failed or was interrupted, the error the runner set up for the call, or `systemError` with the
    ///   simulator's reason when it cannot do what was asked, such as an offer the product does not have).
    /// Apple: https://developer.apple.com/documentation/storekit/product/purchase(options:)
    public func purchase(options: Set<PurchaseOption> = []) async throws -> PurchaseResult {
        let session = try StoreKitSession.resolve(for: "Product.purchase(options:)")
        guard session.isAlive else { throw CancellationError() }
        do {
            let result = try purchase(options: options, on: session)
            session.record(result.record(for: id))
            // A process killed as the purchase returns sees nothing more; the call ends, cancelled, after the launch.
            if case .success(let transaction) = result, await !session.survivesPurchase(of: transaction.unsafePayloadValue.id) {
                throw CancellationError()
            }
            return result
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            session.record(PurchaseRecord(productID: id, result: "failed", message: "\(error)"))
            throw error
        }
    }

    private func purchase(options: Set<PurchaseOption>, on session: StoreKitSession) throws -> PurchaseResult {
        try session.checkFailure(.purchase)
        var quantity = 1
        var offer: String?
        var token: UUID?
        for option in options {
            switch option.kind {
            case .quantity(let value): quantity = value
            case .appAccountToken(let value): token = value
            case .promotionalOffer(let id): offer = id
            case .winBackOffer(let id): offer = id
            case .custom, .simulatesAskToBuyInSandbox: break
            }
        }
        // Apple: the quantity is 1 to 10 (https://developer.apple.com/documentation/storekit/product/purchaseoption/quantity(_:)).
        guard (1...10).contains(quantity), quantity == 1 || type == .consumable else { throw PurchaseError.invalidQuantity }
        let outcome = session.takePurchaseOutcome()
        let answer: Result<(StoreAnswer, SnapshotContext), StoreError> = session.store.withStore { store in
            Result { () throws(StoreError) in
                let resolution = try store.purchase(account: session.account, productID: id, outcome: outcome, quantity: quantity,
                                                    offer: offer, appAccountToken: token?.uuidString.lowercased(), device: session.deviceName)
                let result: StoreAnswer = switch resolution {
                case .success(let transactionId):
                    store.transaction(transactionId).map { StoreAnswer.success($0) } ?? .failed("the purchase's transaction is missing")
                case .userCancelled: .userCancelled
                case .pending: .pending
                case .failed(let message): .failed(message)
                }
                return (result, SnapshotContext(store))
            }
        }
        switch answer {
        case .failure(let error):
            throw StoreKitError.systemError(SimulatorFailure(message: error.message))
        case .success((let result, let context)):
            switch result {
            case .success(let transaction):
                return .success(VerificationResult(Transaction(transaction, context, signer: session.store.signer),
                                                   failure: session.takeVerificationFailure()))
            case .userCancelled: return .userCancelled
            case .pending: return .pending
            case .failed(let message) where message.hasPrefix("Product.PurchaseError."):
                // The store refused the purchase as StoreKit does: productUnavailable, ineligibleForOffer.
                let name = message.dropFirst("Product.PurchaseError.".count).prefix { $0 != ":" }
                throw PurchaseError.allCases.first { $0.name == name } ?? StoreKitError.unknown
            case .failed:
                throw StoreKitError.unknown
            }
        }
    }

    /// How a purchase ended.
    /// Apple: https://developer.apple.com/documentation/storekit/product/purchaseresult
    public enum PurchaseResult: Sendable {
        /// The purchase succeeded; its transaction.
        case success(VerificationResult<Transaction>)
        /// The customer cancelled.
        case userCancelled
        /// The purchase waits for approval (Ask to Buy); the transaction arrives through `Transaction.updates`.
        case pending

        func record(for productID: String) -> PurchaseRecord {
            switch self {
            case .success(let transaction): PurchaseRecord(productID: productID, result: "success", transactionId: String(transaction.unsafePayloadValue.id))
            case .userCancelled: PurchaseRecord(productID: productID, result: "userCancelled")
            case .pending: PurchaseRecord(productID: productID, result: "pending")
            }
        }
    }

    /// An option of a purchase.
    /// Apple: https://developer.apple.com/documentation/storekit/product/purchaseoption
    public struct PurchaseOption: Hashable, Sendable {
        enum Kind: Hashable, Sendable {
            case quantity(Int)
            case appAccountToken(UUID)
            case promotionalOffer(String)
            case winBackOffer(String)
            case simulatesAskToBuyInSandbox(Bool)
            case custom(key: String, value: String)
        }

        let kind: Kind

        /// Units of a consumable.
        public static func quantity(_ quantity: Int) -> PurchaseOption { PurchaseOption(kind: .quantity(quantity)) }

        /// The UUID the app associates with the purchase; it comes back in `Transaction.appAccountToken`.
        public static func appAccountToken(_ token: UUID) -> PurchaseOption { PurchaseOption(kind: .appAccountToken(token)) }

        /// A promotional offer, signed by the app's server. The simulator checks the offer identifier, not the
        /// signature.
        /// Apple: https://developer.apple.com/documentation/storekit/product/purchaseoption/promotionaloffer(offerid:keyid:nonce:signature:timestamp:)
        public static func promotionalOffer(offerID: String, keyID: String, nonce: UUID, signature: Data, timestamp: Int) -> PurchaseOption {
            PurchaseOption(kind: .promotionalOffer(offerID))
        }

        /// A win-back offer of the product.
        /// Apple: https://developer.apple.com/documentation/storekit/product/purchaseoption/winbackoffer(_:)
        public static func winBackOffer(_ offer: Product.SubscriptionOffer) -> PurchaseOption {
            PurchaseOption(kind: .winBackOffer(offer.id ?? ""))
        }

        /// Sandbox's simulated Ask to Buy; in the simulator the runner decides (a `pending` purchase outcome).
        public static func simulatesAskToBuyInSandbox(_ simulates: Bool) -> PurchaseOption {
            PurchaseOption(kind: .simulatesAskToBuyInSandbox(simulates))
        }

        /// A custom key and value.
        public static func custom(key: String, value: String) -> PurchaseOption { PurchaseOption(kind: .custom(key: key, value: value)) }

    }
}

/// How the store answered, before it becomes StoreKit's answer.
private enum StoreAnswer: Sendable {
    case success(StoreTransaction)
    case userCancelled
    case pending
    case failed(String)
}

/// The store could not do what the app asked (an error of the simulator, not of StoreKit).
package struct SimulatorFailure: Error, Sendable, CustomStringConvertible {
    package var message: String
    package var description: String { message }
}

/// The cause of a `StoreKitError.systemError` a matrix step sets up (`failNext`).
struct SetUpSystemError: Error, Sendable, CustomStringConvertible {
    var description: String { "a system error set up by the step's failNext" }
}
