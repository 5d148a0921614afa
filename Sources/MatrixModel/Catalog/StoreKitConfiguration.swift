import Foundation

/// The products of an app as an Xcode StoreKit configuration file (`.storekit`) describes them.
///
/// Read with ``StoreKitConfigurationReader``; formats 1.0 to 6.x are accepted. All four product types are
/// flattened into ``products``; subscription groups keep their order and levels.
/// Apple: "Setting up StoreKit Testing in Xcode"
/// (https://developer.apple.com/documentation/xcode/setting-up-storekit-testing-in-xcode).
public struct StoreKitConfiguration: Sendable, Hashable {
    /// The file format version, `version.major`.`version.minor`.
    public var formatVersion: FormatVersion
    /// The configuration's `identifier`, when present.
    public var identifier: String?
    /// Every product: `products`, `nonRenewingSubscriptions` and the subscriptions of every group.
    public var products: [CatalogProduct]
    /// Subscription groups in file order.
    public var subscriptionGroups: [SubscriptionGroup]
    /// The `settings` object: the test environment defaults Xcode applies.
    public var settings: Settings

    public init(formatVersion: FormatVersion = .init(major: 4, minor: 0), identifier: String? = nil,
                products: [CatalogProduct] = [], subscriptionGroups: [SubscriptionGroup] = [], settings: Settings = .init()) {
        self.formatVersion = formatVersion
        self.identifier = identifier
        self.products = products
        self.subscriptionGroups = subscriptionGroups
        self.settings = settings
    }

    /// The product with `productID`, if the catalog has it.
    public func product(_ productID: String) -> CatalogProduct? {
        products.first { $0.productID == productID }
    }

    /// The group with `id`, if the catalog has it.
    public func group(_ id: String) -> SubscriptionGroup? {
        subscriptionGroups.first { $0.id == id }
    }

    /// The `version` object of a `.storekit` file.
    public struct FormatVersion: Sendable, Hashable, CustomStringConvertible {
        public var major: Int
        public var minor: Int
        public init(major: Int, minor: Int) {
            self.major = major
            self.minor = minor
        }
        public var description: String { "\(major).\(minor)" }
    }

    /// The `settings` object. Keys start with `_` in the file; unknown keys are ignored.
    public struct Settings: Sendable, Hashable {
        /// `_timeRate`: the `SKTestSession.TimeRate` raw value Xcode starts with (0 = real time).
        public var timeRate: Int?
        /// `_storefront`: ISO 3166-1 alpha-3 country code such as `USA`.
        public var storefront: String?
        /// `_locale`, e.g. `en_US`.
        public var locale: String?
        /// `_askToBuyEnabled`: purchases need a parent's approval (they return `pending`).
        public var askToBuyEnabled: Bool?
        /// `_billingGracePeriodEnabled`: a failed renewal enters a billing grace period.
        public var billingGracePeriodEnabled: Bool?
        /// `_billingIssuesEnabled` / `_renewalBillingIssuesEnabled`: renewals fail with a billing issue.
        public var renewalBillingIssuesEnabled: Bool?
        /// `_failTransactionsEnabled`: purchases fail with a StoreKit error.
        public var failTransactionsEnabled: Bool?

        public init(timeRate: Int? = nil, storefront: String? = nil, locale: String? = nil, askToBuyEnabled: Bool? = nil,
                    billingGracePeriodEnabled: Bool? = nil, renewalBillingIssuesEnabled: Bool? = nil,
                    failTransactionsEnabled: Bool? = nil) {
            self.timeRate = timeRate
            self.storefront = storefront
            self.locale = locale
            self.askToBuyEnabled = askToBuyEnabled
            self.billingGracePeriodEnabled = billingGracePeriodEnabled
            self.renewalBillingIssuesEnabled = renewalBillingIssuesEnabled
            self.failTransactionsEnabled = failTransactionsEnabled
        }
    }
}

/// A StoreKit product type, named as in StoreKit's `Product.ProductType`.
///
/// Raw values are the `.storekit` file's `type` strings.
/// Apple: https://developer.apple.com/documentation/storekit/product/producttype
public enum ProductType: String, Sendable, Hashable, Codable, CaseIterable {
    case consumable = "Consumable"
    case nonConsumable = "NonConsumable"
    case nonRenewable = "NonRenewingSubscription"
    case autoRenewable = "RecurringSubscription"

    /// StoreKit's name for the type: `consumable`, `nonConsumable`, `nonRenewable`, `autoRenewable`.
    public var storeKitName: String {
        switch self {
        case .consumable: "consumable"
        case .nonConsumable: "nonConsumable"
        case .nonRenewable: "nonRenewable"
        case .autoRenewable: "autoRenewable"
        }
    }

    /// The App Store Server API `type` of a transaction for this product.
    /// Apple: https://developer.apple.com/documentation/appstoreserverapi/type
    public var transactionType: String {
        switch self {
        case .consumable: "Consumable"
        case .nonConsumable: "Non-Consumable"
        case .nonRenewable: "Non-Renewing Subscription"
        case .autoRenewable: "Auto-Renewable Subscription"
        }
    }
}

/// One product of a StoreKit configuration.
public struct CatalogProduct: Sendable, Hashable {
    public var productID: String
    public var type: ProductType
    public var referenceName: String?
    /// The display name of the first `en_US` localization, else the first non-empty one.
    public var displayName: String?
    /// The description of the first `en_US` localization that has one, else of the first that has one
    /// (`Product.description`).
    public var localizedDescription: String?
    /// `displayPrice` as written, a decimal string such as `"4.99"`.
    public var displayPrice: String
    public var familyShareable: Bool
    /// For auto-renewable subscriptions: the `subscriptionGroupID` (the group's `id`).
    public var subscriptionGroupID: String?
    /// For auto-renewable subscriptions: `groupNumber`, the level in the group (1 = highest).
    public var groupNumber: Int?
    /// For auto-renewable subscriptions: `recurringSubscriptionPeriod` (P1W, P1M, P2M, P3M, P6M, P1Y).
    public var recurringSubscriptionPeriod: ISO8601Duration?
    /// The introductory offer (`introductoryOffer`, or the first of `introductoryOffers`).
    public var introductoryOffer: SubscriptionOffer?
    /// Promotional offers (`adHocOffers`).
    public var promotionalOffers: [SubscriptionOffer]
    /// Offer codes (`codeOffers`).
    public var codeOffers: [SubscriptionOffer]
    /// Win-back offers (`winbackOffers`).
    public var winBackOffers: [SubscriptionOffer]

    public init(productID: String, type: ProductType, referenceName: String? = nil, displayName: String? = nil,
                displayPrice: String = "0.99", familyShareable: Bool = false, subscriptionGroupID: String? = nil,
                groupNumber: Int? = nil, recurringSubscriptionPeriod: ISO8601Duration? = nil,
                introductoryOffer: SubscriptionOffer? = nil, promotionalOffers: [SubscriptionOffer] = [],
                codeOffers: [SubscriptionOffer] = [], winBackOffers: [SubscriptionOffer] = []) {
        self.productID = productID
        self.type = type
        self.referenceName = referenceName
        self.displayName = displayName
        self.displayPrice = displayPrice
        self.familyShareable = familyShareable
        self.subscriptionGroupID = subscriptionGroupID
        self.groupNumber = groupNumber
        self.recurringSubscriptionPeriod = recurringSubscriptionPeriod
        self.introductoryOffer = introductoryOffer
        self.promotionalOffers = promotionalOffers
        self.codeOffers = codeOffers
        self.winBackOffers = winBackOffers
    }

    /// The price in milliunits of the storefront currency (`"4.99"` → 4990), as the App Store Server API
    /// reports `price`. Apple: https://developer.apple.com/documentation/appstoreserverapi/price
    public var priceMilliunits: Int64 { Self.milliunits(displayPrice) }

    /// Whether `text` is a price as ``milliunits(_:)`` reads it: ASCII digits (at most 9) with an optional `.`
    /// and 1 to 4 fraction digits, with optional surrounding white space. Not prices: signs (a negative price),
    /// exponents (`1e30`), `NaN`, `Infinity`, grouping separators, currency symbols, hundreds of digits.
    public static func isPrice(_ text: String) -> Bool {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = trimmed.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        func digits(_ part: Substring, _ range: ClosedRange<Int>) -> Bool {
            range.contains(part.utf8.count) && part.utf8.allSatisfy { (0x30...0x39).contains($0) }
        }
        guard let whole = parts.first, digits(whole, 1...9) else { return false }
        return parts.count == 1 || digits(parts[1], 1...4)
    }

    /// How a price is written, for diagnostics.
    static let priceHint = "a price is a decimal number such as \"4.99\": at most 9 digits, and up to 4 after the point; "
        + "it is signed into transactions in milliunits (4.99 → 4990)"

    /// Converts a decimal price string to milliunits, rounding half up; 0 for text that is not a price.
    ///
    /// A price is ASCII digits with an optional `.` and fraction digits (`"4.99"`, `"79"`, `"0.00"`), below
    /// one billion, with optional surrounding white space. Signs, exponents, grouping separators and currency
    /// symbols are not prices.
    public static func milliunits(_ price: String) -> Int64 {
        func isDigits(_ text: Substring) -> Bool { text.utf8.allSatisfy { (0x30...0x39).contains($0) } }
        // Prices are rarely padded; trimming through Foundation is slow enough to show when every renewal asks.
        let padded = price.utf8.first.map { $0 <= 0x20 || $0 >= 0x80 } == true || price.utf8.last.map { $0 <= 0x20 || $0 >= 0x80 } == true
        let trimmed = padded ? price.trimmingCharacters(in: .whitespacesAndNewlines) : price
        let parts = trimmed.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let wholeText = parts.first, isDigits(wholeText), let whole = Int64(wholeText), whole < 1_000_000_000 else { return 0 }
        var fraction: Int64 = 0
        if parts.count == 2 {
            guard isDigits(parts[1]) else { return 0 }
            // The first four fraction digits as ten-thousandths ("99" → 9900), rounded half up to thousandths.
            let digits = parts[1].utf8.prefix(4)
            var value: Int64 = 0
            for digit in digits { value = value * 10 + Int64(digit - 0x30) }
            for _ in digits.count..<4 { value *= 10 }
            fraction = (value + 5) / 10
        }
        return whole * 1000 + fraction
    }
}

/// A subscription offer of a `.storekit` file.
public struct SubscriptionOffer: Sendable, Hashable {
    /// How the customer pays: `free` (free trial), `payAsYouGo`, `payUpFront`.
    /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptionoffer/paymentmode
    public enum PaymentMode: String, Sendable, Hashable, Codable {
        case freeTrial = "free"
        case payAsYouGo
        case payUpFront
    }

    /// `offerID` for promotional and win-back offers; `nil` for introductory offers.
    public var offerID: String?
    public var paymentMode: PaymentMode
    /// One offer period, e.g. `P1W`.
    public var subscriptionPeriod: ISO8601Duration
    /// How many periods the offer lasts (`numberOfPeriods`, at least 1).
    public var numberOfPeriods: Int
    /// The offer price as written; `nil` for free trials.
    public var displayPrice: String?

    public init(offerID: String? = nil, paymentMode: PaymentMode, subscriptionPeriod: ISO8601Duration, numberOfPeriods: Int = 1,
                displayPrice: String? = nil) {
        self.offerID = offerID
        self.paymentMode = paymentMode
        self.subscriptionPeriod = subscriptionPeriod
        self.numberOfPeriods = numberOfPeriods
        self.displayPrice = displayPrice
    }

    /// How long the offer lasts in all: one period for pay up front, else the period times `numberOfPeriods`.
    public var totalDuration: ISO8601Duration {
        paymentMode == .payUpFront ? subscriptionPeriod : subscriptionPeriod.multiplied(by: max(1, numberOfPeriods))
    }
}

/// A subscription group: subscriptions a customer can hold only one of at a time.
/// Apple: https://developer.apple.com/app-store/subscriptions/#ranking
public struct SubscriptionGroup: Sendable, Hashable {
    /// The group's `id` in the file (Apple's `subscriptionGroupIdentifier`).
    public var id: String
    /// The group's reference `name`.
    public var name: String
    /// Product IDs of its subscriptions, in file order.
    public var productIDs: [String]

    public init(id: String, name: String, productIDs: [String]) {
        self.id = id
        self.name = name
        self.productIDs = productIDs
    }
}
