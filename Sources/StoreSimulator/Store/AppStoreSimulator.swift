import Foundation
import MatrixModel

/// The App Store on a virtual clock: accounts, transactions, subscriptions, Family Sharing, notifications.
///
/// One instance serves one case and is owned by the task running it. Time moves only when told
/// (``advance(to:)``). Every rule cites the Apple page it follows.
public final class AppStoreSimulator {
    public let catalog: StoreKitConfiguration
    public let configuration: StoreConfiguration
    /// The catalog's products in catalog order, with what ``currentEntitlements(account:)`` needs of each: it runs
    /// at every step, and a whole product is a large copy.
    let productKinds: [(productID: String, type: ProductType, groupID: String?)]
    /// The virtual clock, ms since 1970.
    public internal(set) var now: Int64
    /// Every transaction, in creation order.
    public internal(set) var transactions: [StoreTransaction] = []
    var transactionIndex: [String: Int] = [:]
    /// Indices into ``transactions`` per account and product ID, in creation order: lookups by account stay
    /// proportional to the account's products, not to every transaction (a case can renew thousands of times).
    var transactionIndices: [String: [String: [Int]]] = [:]
    /// Renewal transactions per account.
    var renewalCounts: [String: Int] = [:]
    /// Indices into ``transactions`` of each account's unfinished transactions, in creation order.
    var unfinishedIndices: [String: [Int]] = [:]
    /// Subscriptions by account and group ID.
    public internal(set) var subscriptions: [SubscriptionKey: SubscriptionState] = [:]
    /// A family member's shared subscription in a group where the member also holds one of their own (which
    /// ``subscriptions`` keeps): StoreKit then reports both statuses, and the shared subscription follows the
    /// organizer's as any shared one does.
    /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/status-swift.property
    public internal(set) var familySharedSubscriptions: [SubscriptionKey: SubscriptionState] = [:]
    /// Every notification sent, in order.
    public internal(set) var notifications: [StoreNotification] = []
    /// Transaction updates to deliver to devices, in order (see ``Device``).
    public internal(set) var updateLog: [TransactionUpdate] = []
    /// Purchases waiting for Ask to Buy approval.
    public internal(set) var pendingApprovals: [PendingPurchase] = []
    /// Purchases interrupted until the customer resolves an issue.
    public internal(set) var interruptedPurchases: [PendingPurchase] = []
    /// Products the developer removed from sale (``removeFromSale(productID:)``).
    public internal(set) var productsNotForSale: Set<String> = []
    /// Family organizer of each member whose membership is active.
    public internal(set) var familyOrganizer: [String: String] = [:]
    /// Accounts that used an introductory offer in a group: "account|groupID".
    var introductoryOfferUsed: Set<String> = []
    /// Prices the developer changed (``requestPriceIncrease(account:productID:price:)``), as the catalog writes
    /// prices, by product ID: what the product costs new customers and what StoreKit shows.
    public internal(set) var changedPrices: [String: String] = [:]
    /// Each account's `appTransactionId`, made at its first transaction.
    var appTransactionIds: [String: String] = [:]
    var nextAppTransaction: Int64 = 7_040_000_000_000_001
    var nextRequest = 1
    var nextNumber: Int64 = 2_000_000_000_000_001
    var nextWebOrder: Int64 = 2_000_000_000_500_001
    var nextNotification = 1

    /// Identifies a subscription: one per account and subscription group.
    public struct SubscriptionKey: Sendable, Hashable, Comparable {
        public var account: String
        public var groupID: String

        public init(account: String, groupID: String) {
            self.account = account
            self.groupID = groupID
        }

        public static func < (lhs: SubscriptionKey, rhs: SubscriptionKey) -> Bool {
            (lhs.account, lhs.groupID) < (rhs.account, rhs.groupID)
        }
    }

    /// A transaction to deliver through `Transaction.updates` to the devices of an account.
    public struct TransactionUpdate: Sendable, Hashable {
        public var account: String
        public var transactionId: String
        /// The device whose `purchase()` call already returned this transaction: `updates` does not re-emit it
        /// there. Apple: https://developer.apple.com/documentation/storekit/transaction/updates
        public var excludingDevice: String?
    }

    /// A purchase waiting for approval or for an issue to be resolved.
    public struct PendingPurchase: Sendable, Hashable {
        public var account: String
        public var productId: String
        public var quantity: Int
        public var offer: String?
        public var appAccountToken: String?
    }

    /// The latest time the clock reaches, 9999-12-31T23:59:59.999Z in ms since 1970: later dates have no
    /// four-digit year, and X.509 validity (GeneralizedTime) ends there.
    public static let latestTime: Int64 = 253_402_300_799_999

    public init(catalog: StoreKitConfiguration, configuration: StoreConfiguration) {
        self.catalog = catalog
        self.configuration = configuration
        self.productKinds = catalog.products.map { ($0.productID, $0.type, $0.subscriptionGroupID) }
        self.now = configuration.startTime
        let block = min(max(0, configuration.identifierSpace), Self.identifierSpaces - 1)
        nextNumber += block * Self.identifiersPerSpace
        nextWebOrder += block * Self.identifiersPerSpace
    }

    /// Identifiers of one ``StoreConfiguration/identifierSpace``.
    public static let identifiersPerSpace: Int64 = 10_000_000
    /// How many identifier spaces there are: every id of the last one still fits an Int64 (a backend may store it
    /// as one). Space 0 gives 16-digit transaction ids, as Apple's sandbox does; the last spaces give 19 digits.
    public static let identifierSpaces: Int64 = 922_000_000_000

    /// A notification UUID: the identifier space's low 32 bits, mixed with the salt's high 32, as the first
    /// group; the salt's other 32 bits in the next three groups (`SSSS-4SSS-V00S`, `V` the `variant` digit); then
    /// `number`. With salt 0 the groups read `0000-4000-V000`, as they always did.
    public static func notificationUUID(space: Int64, salt: UInt64, variant: Character, number: Int) -> String {
        func hex(_ value: UInt64, digits: Int) -> String {
            let text = String(value, radix: 16)
            return String(repeating: "0", count: max(0, digits - text.utf8.count)) + text
        }
        let prefix = UInt32(truncatingIfNeeded: space) ^ UInt32(truncatingIfNeeded: salt >> 32)
        let middle = hex((salt >> 16) & 0xffff, digits: 4) + "-4" + hex((salt >> 4) & 0xfff, digits: 3) + "-" + String(variant) + "00"
            + hex(salt & 0xf, digits: 1)
        return identifier(prefix, middle, number)
    }

    // MARK: Lookup

    public func transaction(_ id: String) -> StoreTransaction? {
        transactionIndex[id].map { transactions[$0] }
    }

    /// The newest transaction of `account` for `productID` that satisfies `predicate`.
    public func lastTransaction(account: String, productID: String,
                                where predicate: (StoreTransaction) -> Bool = { _ in true }) -> StoreTransaction? {
        guard let indices = transactionIndices[account]?[productID] else { return nil }
        for index in indices.reversed() where predicate(transactions[index]) { return transactions[index] }
        return nil
    }

    /// Every transaction of `account`, in creation order.
    public func transactions(account: String) -> [StoreTransaction] {
        guard let byProduct = transactionIndices[account] else { return [] }
        return byProduct.values.joined().sorted().map { transactions[$0] }
    }

    func update(_ id: String, _ change: (inout StoreTransaction) -> Void) {
        guard let index = transactionIndex[id] else { return }
        change(&transactions[index])
    }

    /// What `productID` costs now, as the catalog writes prices (`"4.99"`): the catalog's price unless the
    /// developer changed it.
    public func displayPrice(of product: CatalogProduct) -> String {
        changedPrices[product.productID] ?? product.displayPrice
    }

    /// What `product` costs now, milliunits.
    func currentPrice(of product: CatalogProduct) -> Int64 {
        CatalogProduct.milliunits(displayPrice(of: product))
    }

    /// The account's `appTransactionId`, made the first time it is needed.
    /// Apple: https://developer.apple.com/documentation/appstoreserverapi/apptransactionid
    func appTransactionId(of account: String) -> String {
        if let id = appTransactionIds[account] { return id }
        defer { nextAppTransaction += 1 }
        let id = String(nextAppTransaction)
        appTransactionIds[account] = id
        return id
    }

    func product(_ productID: String) throws(StoreError) -> CatalogProduct {
        guard let product = catalog.product(productID) else {
            throw StoreError("the catalog has no product \"\(productID)\"")
        }
        return product
    }

    /// The subscription of `account` in `productID`'s group, if the product is auto-renewable.
    public func subscription(account: String, product productID: String) -> SubscriptionState? {
        guard let group = catalog.product(productID)?.subscriptionGroupID else { return nil }
        return subscriptions[SubscriptionKey(account: account, groupID: group)]
    }

    /// The group name of a group ID (the name expectations use).
    public func groupName(_ groupID: String) -> String {
        catalog.group(groupID)?.name ?? groupID
    }

    // MARK: Creating records

    func makeID() -> String {
        defer { nextNumber += 1 }
        return String(nextNumber)
    }

    func makeWebOrderLineItemID() -> String {
        defer { nextWebOrder += 1 }
        return String(nextWebOrder)
    }

    /// Records a new transaction and returns its ID.
    @discardableResult
    func addTransaction(account: String, product: CatalogProduct, originalTransactionId: String? = nil,
                        originalPurchaseDate: Int64? = nil, purchaseDate: Int64? = nil, expiresDate: Int64? = nil,
                        quantity: Int = 1, ownership: String = "PURCHASED", reason: String = "PURCHASE",
                        offer: SubscriptionOfferUse? = nil, price regular: Int64? = nil, appAccountToken: String? = nil,
                        finished: Bool = false) -> String {
        let id = makeID()
        let (currency, storefrontId) = configuration.currencyAndStorefrontId
        let date = purchaseDate ?? now
        var price = (regular ?? currentPrice(of: product)) * Int64(quantity)
        if let offer { price = offer.priceMilliunits }
        let transaction = StoreTransaction(
            transactionId: id, originalTransactionId: originalTransactionId ?? id,
            webOrderLineItemId: product.type == .autoRenewable ? makeWebOrderLineItemID() : nil,
            account: account, productId: product.productID, productType: product.type,
            subscriptionGroupIdentifier: product.subscriptionGroupID, purchaseDate: date,
            originalPurchaseDate: originalPurchaseDate ?? date, expiresDate: expiresDate, quantity: quantity,
            inAppOwnershipType: ownership, transactionReason: reason, revocationDate: nil, revocationReason: nil,
            revocationType: nil, revocationPercentage: nil, isUpgraded: false, offerType: offer?.offerType,
            offerIdentifier: offer?.offerIdentifier, offerDiscountType: offer?.discountType, offerPeriod: offer?.period,
            appAccountToken: appAccountToken, price: ownership == "FAMILY_SHARED" ? 0 : price, currency: currency,
            storefront: configuration.storefront, storefrontId: storefrontId, appTransactionId: appTransactionId(of: account),
            finished: finished)
        transactionIndex[id] = transactions.count
        transactionIndices[account, default: [:]][product.productID, default: []].append(transactions.count)
        if reason == "RENEWAL" { renewalCounts[account, default: 0] += 1 }
        if !finished { unfinishedIndices[account, default: []].append(transactions.count) }
        transactions.append(transaction)
        return id
    }

    /// A UUID-shaped identifier: `prefix` as eight hex digits, `middle`, and `number` as twelve decimal digits
    /// (`%08x-middle-%012d`, without `String(format:)`, which costs more than the rest of a notification's
    /// making). `number` is never negative; one of more than twelve digits is written whole, as `%012d` writes it.
    public static func identifier(_ prefix: UInt32, _ middle: String, _ number: Int) -> String {
        let hex = String(prefix, radix: 16)
        let decimal = String(number)
        return String(repeating: "0", count: max(0, 8 - hex.utf8.count)) + hex + "-" + middle + "-"
            + String(repeating: "0", count: max(0, 12 - decimal.utf8.count)) + decimal
    }

    /// Sends a notification (App Store Server Notifications V2) with what it embeds as it is now, at its event:
    /// the transaction, the subscription's renewal info and status. Nothing is sent where no App Store server
    /// takes part (``StoreConfiguration/sendsServerNotifications``).
    /// Apple: https://developer.apple.com/documentation/appstoreservernotifications/responsebodyv2decodedpayload
    func notify(_ type: String, _ subtype: String? = nil, account: String, transactionId: String?, groupID: String? = nil,
                summary: RenewalExtensionSummary? = nil, consumptionRequestReason: String? = nil) {
        guard configuration.sendsServerNotifications else { return }
        let uuid = Self.notificationUUID(space: configuration.identifierSpace, salt: configuration.identifierSalt, variant: "8", number: nextNotification)
        nextNotification += 1
        // The subscription the notification is about: the one shared with a member who also holds their own, when
        // its transaction is the shared one's.
        let sub = groupID.map { SubscriptionKey(account: account, groupID: $0) }.flatMap { key in
            familySharedSubscriptions[key].flatMap { $0.latestTransactionId == transactionId ? $0 : nil } ?? subscriptions[key]
        }
        notifications.append(StoreNotification(
            notificationUUID: uuid, notificationType: type, subtype: subtype, account: account, transactionId: transactionId,
            groupID: groupID, signedDate: now, transaction: transactionId.flatMap { transaction($0) },
            renewalInfo: sub.map { renewalInfoSnapshot(of: $0) }, status: sub?.state.statusCode,
            summary: summary, consumptionRequestReason: consumptionRequestReason))
    }

    /// Queues a transaction for `Transaction.updates` on the account's devices.
    func deliver(_ transactionId: String, to account: String, excludingDevice: String? = nil) {
        updateLog.append(TransactionUpdate(account: account, transactionId: transactionId, excludingDevice: excludingDevice))
    }

    /// Marks a transaction finished (`Transaction.finish()`).
    /// Apple: https://developer.apple.com/documentation/storekit/transaction/finish()
    public func finish(_ transactionId: String) {
        guard let index = transactionIndex[transactionId] else { return }
        transactions[index].finished = true
        unfinishedIndices[transactions[index].account]?.removeAll { $0 == index }
    }

    // MARK: Accounts

    /// Sets up the accounts' starting state: family memberships, then the products each already owns (bought a
    /// day before the case starts, finished).
    /// - Throws: ``StoreError`` when the storefront is not one the store knows (data would otherwise be signed
    ///   as another storefront's), or an account's products cannot be bought.
    public func prepare(_ accounts: [Account]) throws(StoreError) {
        guard AppStoreStorefront.named(configuration.storefront) != nil else {
            throw StoreError("unknown storefront \"\(configuration.storefront)\"; use an ISO 3166-1 alpha-3 code the App Store sells in, "
                             + "such as USA, GBR, FRA, DEU or JPN")
        }
        for account in accounts {
            if let organizer = account.familyOrganizer { familyOrganizer[account.alias] = organizer }
        }
        // Organizers first, so that members receive what organizers own.
        for account in accounts where account.familyOrganizer == nil { try prepareOwned(account) }
        for account in accounts where account.familyOrganizer != nil { try prepareOwned(account) }
    }

    /// Buys what `account` owns before the case starts: a day before, or half of the shortest period among its
    /// auto-renewable subscriptions under the clock when that is shorter (at Xcode's fastest rates a period
    /// lasts seconds, and a day of them would be tens of thousands of renewals before the first step).
    func prepareOwned(_ account: Account) throws(StoreError) {
        let start = configuration.startTime
        var lead: Int64 = 86_400_000
        for productID in account.owns {
            let owned = try product(productID)
            // The first period is the introductory offer's when the account is eligible for it.
            for period in [owned.recurringSubscriptionPeriod, owned.introductoryOffer?.totalDuration].compactMap({ $0 }) {
                lead = min(lead, max(1, (configuration.schedule.periodEnd(period, from: start) - start) / 2))
            }
        }
        let saved = now
        now = start - lead
        defer { now = saved }
        for productID in account.owns {
            let product = try product(productID)
            _ = try completePurchase(account: account.alias, product: product, quantity: 1, offer: nil, appAccountToken: nil,
                                     finished: true, notify: false)
        }
    }

    /// Family members whose membership with `organizer` is active.
    public func familyMembers(of organizer: String) -> [String] {
        familyOrganizer.filter { $0.value == organizer }.map(\.key).sorted()
    }
}

/// A simulated App Store operation could not be performed as asked.
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// An offer applied to a purchase or a renewal: its terms for one transaction.
struct SubscriptionOfferUse: Sendable, Hashable {
    /// 1 introductory, 2 promotional, 3 offer code, 4 win-back.
    var offerType: Int
    var offerIdentifier: String?
    /// `FREE_TRIAL`, `PAY_AS_YOU_GO`, `PAY_UP_FRONT`.
    var discountType: String
    /// `offerPeriod`: one period of the offer, ISO 8601.
    var period: String
    /// What one transaction under the offer lasts: one period paying as you go, the whole offer otherwise.
    var duration: ISO8601Duration
    /// Milliunits charged for one transaction.
    var priceMilliunits: Int64
    /// How many transactions the offer covers (pay as you go: its number of periods; otherwise 1).
    var transactions: Int
}
