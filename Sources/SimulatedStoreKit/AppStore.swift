import Foundation
import MatrixModel
import StoreSimulator

/// The App Store as an app reaches it outside products and transactions.
/// Apple: https://developer.apple.com/documentation/storekit/appstore
public enum AppStore {
    /// Synchronizes the device's transactions with the App Store (the Restore Purchases button). What waited for
    /// the device arrives through `Transaction.updates`, and `sync()` returns once the app's listeners have
    /// handled it.
    ///
    /// - Throws: the ``StoreKitError`` the runner set up for the call (``StoreKitCall/sync``), or
    ///   `StoreKitError.unknown` when no case is bound.
    /// Apple: https://developer.apple.com/documentation/storekit/appstore/sync()
    public static func sync() async throws {
        let session = try StoreKitSession.resolve(for: "AppStore.sync()")
        try session.checkFailure(.sync)
        if session.deliverPendingUpdates() > 0 {
            _ = await session.settle()
        }
    }

    /// Whether the customer may make payments (no parental restriction in the simulator).
    /// Apple: https://developer.apple.com/documentation/storekit/appstore/canmakepayments
    public static var canMakePayments: Bool { true }

    /// The server environment that signs App Store data.
    /// Apple: https://developer.apple.com/documentation/storekit/appstore/environment
    public struct Environment: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let production = Environment(rawValue: "Production")
        public static let sandbox = Environment(rawValue: "Sandbox")
        public static let xcode = Environment(rawValue: "Xcode")

        init(_ signed: SignedEnvironment) {
            self.init(rawValue: signed.rawValue)
        }
    }
}

/// An error StoreKit reports.
/// Apple: https://developer.apple.com/documentation/storekit/storekiterror
public enum StoreKitError: Error, Sendable, CustomStringConvertible {
    case unknown
    case userCancelled
    case networkError(URLError)
    case systemError(any Error & Sendable)
    case notAvailableInStorefront
    case notEntitled
    case unsupported

    /// A case of ``StoreKitError`` by name, as a matrix names the error a call fails with.
    public enum Name: String, Sendable, Hashable, CaseIterable {
        case unknown, userCancelled, networkError, systemError, notAvailableInStorefront, notEntitled, unsupported

        /// The error.
        var error: StoreKitError {
            switch self {
            case .unknown: .unknown
            case .userCancelled: .userCancelled
            case .networkError: .networkError(URLError(.notConnectedToInternet))
            case .systemError: .systemError(SetUpSystemError())
            case .notAvailableInStorefront: .notAvailableInStorefront
            case .notEntitled: .notEntitled
            case .unsupported: .unsupported
            }
        }
    }

    public var description: String {
        switch self {
        case .unknown: "StoreKitError.unknown"
        case .userCancelled: "StoreKitError.userCancelled"
        case .networkError(let error): "StoreKitError.networkError(\(error.code.rawValue))"
        case .systemError(let error): "StoreKitError.systemError: \(error)"
        case .notAvailableInStorefront: "StoreKitError.notAvailableInStorefront"
        case .notEntitled: "StoreKitError.notEntitled"
        case .unsupported: "StoreKitError.unsupported"
        }
    }
}

extension Product {
    /// Why a purchase was refused.
    /// Apple: https://developer.apple.com/documentation/storekit/product/purchaseerror
    public enum PurchaseError: Error, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        case invalidQuantity
        case productUnavailable
        case purchaseNotAllowed
        case ineligibleForOffer
        case invalidOfferIdentifier
        case invalidOfferPrice
        case invalidOfferSignature
        case missingOfferParameters

        public var description: String { "Product.PurchaseError.\(self.name)" }

        /// The case's name, as a matrix writes it.
        public var name: String {
            switch self {
            case .invalidQuantity: "invalidQuantity"
            case .productUnavailable: "productUnavailable"
            case .purchaseNotAllowed: "purchaseNotAllowed"
            case .ineligibleForOffer: "ineligibleForOffer"
            case .invalidOfferIdentifier: "invalidOfferIdentifier"
            case .invalidOfferPrice: "invalidOfferPrice"
            case .invalidOfferSignature: "invalidOfferSignature"
            case .missingOfferParameters: "missingOfferParameters"
            }
        }
    }
}

/// What a snapshot of the store puts in every value StoreKit hands out at that moment.
struct SnapshotContext: Sendable {
    var bundleId: String
    var environment: SignedEnvironment
    var currency: String
    /// The store's clock, ms since 1970: the values' `signedDate`.
    var now: Int64
    /// Which store handed the values out: a transaction of another case's store finishes nothing here.
    var origin: ObjectIdentifier

    init(_ store: AppStoreSimulator) {
        origin = ObjectIdentifier(store)
        bundleId = store.configuration.bundleId
        environment = store.configuration.signedEnvironment
        currency = store.configuration.currencyAndStorefrontId.currency
        now = store.now
    }
}
