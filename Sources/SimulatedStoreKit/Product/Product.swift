import Foundation
import MatrixModel
import StoreSimulator

/// A product of the simulated App Store, as StoreKit 2 describes it: loaded with ``products(for:)``, bought with
/// ``purchase(options:)``.
/// Apple: https://developer.apple.com/documentation/storekit/product
public struct Product: Identifiable, Hashable, Sendable {
    /// The product identifier.
    public let id: String
    /// Consumable, non-consumable, non-renewing or auto-renewable.
    public let type: ProductType
    /// The localized name (the `.storekit` file's first `en_US` localization, else its first, else the
    /// reference name, else the identifier).
    public let displayName: String
    /// The localized description; empty when the catalog has none.
    public let description: String
    /// The price in the storefront's currency.
    public let price: Decimal
    /// The price as the catalog writes it (or as the developer changed it), with the storefront's currency
    /// symbol (`$4.99`).
    public let displayPrice: String
    /// Whether Family Sharing shares the product.
    public let isFamilyShareable: Bool
    /// The subscription's details, for auto-renewable subscriptions.
    public let subscription: SubscriptionInfo?

    init(_ product: CatalogProduct, catalog: StoreKitConfiguration, currency: String, price current: String) {
        id = product.productID
        type = ProductType(product.type)
        displayName = product.displayName ?? product.referenceName ?? product.productID
        description = product.localizedDescription ?? ""
        price = Self.decimal(milliunits: CatalogProduct.milliunits(current))
        displayPrice = Self.displayPrice(current, currency: currency)
        isFamilyShareable = product.familyShareable
        subscription = SubscriptionInfo(product, catalog: catalog, currency: currency)
    }

    /// The products among `identifiers` that the store sells; identifiers it does not know are left out.
    ///
    /// - Throws: the ``StoreKitError`` the runner set up for this call (``StoreKitCall/products``), or
    ///   `StoreKitError.unknown` when no case is bound.
    /// Apple: https://developer.apple.com/documentation/storekit/product/products(for:)
    public static func products<Identifiers: Collection>(for identifiers: Identifiers) async throws -> [Product]
        where Identifiers.Element == String {
        let session = try StoreKitSession.resolve(for: "Product.products(for:)")
        try session.checkFailure(.products)
        let wanted = Array(identifiers)
        return session.store.withProducts { store, made in
            // An app asks for its few products at every launch: a set to drop repeats only for long lists.
            var seen = wanted.count > 16 ? Set<String>(minimumCapacity: wanted.count) : nil
            return wanted.indices.compactMap { index -> Product? in
                let id = wanted[index]
                let first = seen?.insert(id).inserted ?? !wanted[..<index].contains(id)
                guard first, let product = store.catalog.product(id) else { return nil }
                return Self.product(product, in: store, made: &made)
            }
        }
    }

    /// The `Product` for `product` of `store`'s catalog at its current price, from `made` when one was made at
    /// that price: a store's catalog and currency never change, and apps load products on every screen (making
    /// one reads its offers and formats its prices).
    private static func product(_ product: CatalogProduct, in store: AppStoreSimulator,
                                made: inout [String: (price: String, product: Product)]) -> Product {
        let price = store.displayPrice(of: product)
        if let known = made[product.productID], known.price == price { return known.product }
        let fresh = Product(product, catalog: store.catalog, currency: store.configuration.currencyAndStorefrontId.currency, price: price)
        made[product.productID] = (price, fresh)
        return fresh
    }

    /// The latest transaction that entitles the customer to this product, if one does (the product's entry of
    /// `Transaction.currentEntitlements`). Deprecated by Apple in favour of ``currentEntitlements``.
    /// Apple: https://developer.apple.com/documentation/storekit/product/currententitlement
    public var currentEntitlement: VerificationResult<Transaction>? {
        get async {
            await Transaction.currentEntitlement(for: id)
        }
    }

    /// The transactions that entitle the customer to this product.
    /// Apple: https://developer.apple.com/documentation/storekit/product/currententitlements
    public var currentEntitlements: Transaction.Transactions {
        Transaction.currentEntitlements(for: id)
    }

    /// The customer's latest transaction for this product, if any (`Transaction.latest(for:)`).
    /// Apple: https://developer.apple.com/documentation/storekit/product/latesttransaction
    public var latestTransaction: VerificationResult<Transaction>? {
        get async {
            await Transaction.latest(for: id)
        }
    }

    /// `milliunits / 1000` as a decimal, exactly, in the compact form the division gives (`4990` → 499 × 10⁻²).
    ///
    /// Decimal division is slow enough to show in every `products(for:)` call and transaction snapshot, so a
    /// positive price drops its trailing zeros in integer arithmetic and sets the exponent instead.
    static func decimal(milliunits: Int64) -> Decimal {
        guard milliunits > 0 else { return Decimal(milliunits) / Decimal(1000) }
        var significand = milliunits
        var exponent = -3
        while significand % 10 == 0 {
            significand /= 10
            exponent += 1
        }
        return Decimal(sign: .plus, exponent: exponent, significand: Decimal(significand))
    }

    /// A catalog price with its currency, the way the simulated StoreKit shows it (``AppStoreStorefront/displayPrice(_:)``).
    static func displayPrice(_ price: String, currency: String) -> String {
        AppStoreStorefront(countryCode: "", id: "", currency: currency).displayPrice(price)
    }
}

extension Product {
    /// The kind of a product.
    /// Apple: https://developer.apple.com/documentation/storekit/product/producttype
    public struct ProductType: RawRepresentable, Hashable, Sendable {
        public let rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        public static let consumable = ProductType(rawValue: "Consumable")
        public static let nonConsumable = ProductType(rawValue: "Non-Consumable")
        public static let nonRenewable = ProductType(rawValue: "Non-Renewing Subscription")
        public static let autoRenewable = ProductType(rawValue: "Auto-Renewable Subscription")

        init(_ type: MatrixModel.ProductType) {
            self.init(rawValue: type.transactionType)
        }
    }
}
