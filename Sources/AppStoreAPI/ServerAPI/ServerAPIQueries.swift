import Foundation
import AppStoreModels
import MatrixModel

/// The filters of Get Transaction History (v2); all optional. Paging (`revision`) is the client's business.
///
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/get-transaction-history
public struct TransactionHistoryQuery: Sendable, Hashable {
    /// A product type filter value (raw values kept, so values Apple adds later can be sent).
    public struct ProductType: RawRepresentable, Sendable, Hashable {
        /// The raw value, e.g. `AUTO_RENEWABLE`.
        public var rawValue: String
        /// Wraps a raw value.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Auto-renewable subscriptions.
        public static let autoRenewable = ProductType(rawValue: "AUTO_RENEWABLE")
        /// Non-renewing subscriptions.
        public static let nonRenewable = ProductType(rawValue: "NON_RENEWABLE")
        /// Consumables.
        public static let consumable = ProductType(rawValue: "CONSUMABLE")
        /// Non-consumables.
        public static let nonConsumable = ProductType(rawValue: "NON_CONSUMABLE")
    }

    /// The order of the records, by the date each was last modified.
    public enum Sort: String, Sendable, Hashable {
        /// Oldest first (Apple's default).
        case ascending = "ASCENDING"
        /// Newest first.
        case descending = "DESCENDING"
    }

    /// Only transactions from this time (ms since 1970).
    public var startDate: MillisecondsDate?
    /// Only transactions before this time (ms since 1970).
    public var endDate: MillisecondsDate?
    /// Only these product ids.
    public var productIds: [String]
    /// Only these product types.
    public var productTypes: [ProductType]
    /// The order.
    public var sort: Sort?
    /// Only these subscription groups.
    public var subscriptionGroupIdentifiers: [String]
    /// `PURCHASED` or `FAMILY_SHARED`.
    public var inAppOwnershipType: String?
    /// `true` only revoked, `false` only not revoked.
    public var revoked: Bool?

    /// Creates a query; with no arguments, the whole history.
    public init(startDate: MillisecondsDate? = nil, endDate: MillisecondsDate? = nil, productIds: [String] = [], productTypes: [ProductType] = [],
                sort: Sort? = nil, subscriptionGroupIdentifiers: [String] = [], inAppOwnershipType: String? = nil, revoked: Bool? = nil) {
        self.startDate = startDate
        self.endDate = endDate
        self.productIds = productIds
        self.productTypes = productTypes
        self.sort = sort
        self.subscriptionGroupIdentifiers = subscriptionGroupIdentifiers
        self.inAppOwnershipType = inAppOwnershipType
        self.revoked = revoked
    }

    /// The query items, in Apple's parameter names; repeated names for lists.
    public var queryItems: [URLQueryItem] {
        var items: [URLQueryItem] = []
        if let startDate { items.append(URLQueryItem(name: "startDate", value: String(startDate.milliseconds))) }
        if let endDate { items.append(URLQueryItem(name: "endDate", value: String(endDate.milliseconds))) }
        items += productIds.map { URLQueryItem(name: "productId", value: $0) }
        items += productTypes.map { URLQueryItem(name: "productType", value: $0.rawValue) }
        if let sort { items.append(URLQueryItem(name: "sort", value: sort.rawValue)) }
        items += subscriptionGroupIdentifiers.map { URLQueryItem(name: "subscriptionGroupIdentifier", value: $0) }
        if let inAppOwnershipType { items.append(URLQueryItem(name: "inAppOwnershipType", value: inAppOwnershipType)) }
        if let revoked { items.append(URLQueryItem(name: "revoked", value: revoked ? "true" : "false")) }
        return items
    }
}

/// The window and filters of Get Notification History.
///
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/get-notification-history
public struct NotificationHistoryQuery: Sendable, Hashable {
    /// Start of the window (ms since 1970); Apple keeps 180 days.
    public var startDate: MillisecondsDate
    /// End of the window (ms since 1970); after `startDate`.
    public var endDate: MillisecondsDate
    /// Only this `notificationType` (not together with `transactionId`).
    public var notificationType: String?
    /// Only this `subtype`; needs `notificationType`.
    public var notificationSubtype: String?
    /// Only the customer who owns this transaction (not together with `notificationType`).
    public var transactionId: String?
    /// Only notifications that did not reach the server.
    public var onlyFailures: Bool?

    /// Creates a query for `startDate..<endDate`.
    public init(startDate: MillisecondsDate, endDate: MillisecondsDate, notificationType: String? = nil, notificationSubtype: String? = nil,
                transactionId: String? = nil, onlyFailures: Bool? = nil) {
        self.startDate = startDate
        self.endDate = endDate
        self.notificationType = notificationType
        self.notificationSubtype = notificationSubtype
        self.transactionId = transactionId
        self.onlyFailures = onlyFailures
    }

    /// A query for the window between two dates.
    public init(from start: Date, to end: Date, transactionId: String? = nil) {
        self.init(startDate: MillisecondsDate(Int64((start.timeIntervalSince1970 * 1000).rounded(.down))),
                  endDate: MillisecondsDate(Int64((end.timeIntervalSince1970 * 1000).rounded(.up))),
                  transactionId: transactionId)
    }

    /// The problems Apple would answer with a 400, found before sending: an empty window, both filters, a
    /// subtype without a type. `nil` when there is none.
    public var problem: String? {
        if endDate <= startDate { return "the end date must be after the start date (StartDateAfterEndDateError)" }
        if transactionId != nil, notificationType != nil {
            return "give either a transaction id or a notification type, not both (MultipleFiltersSuppliedError)"
        }
        if notificationSubtype != nil, notificationType == nil { return "a notification subtype needs its notification type" }
        return nil
    }

    /// The request body.
    public var body: NotificationHistoryRequest {
        NotificationHistoryRequest(startDate: startDate, endDate: endDate, notificationType: notificationType,
                                   notificationSubtype: notificationSubtype, transactionId: transactionId, onlyFailures: onlyFailures)
    }
}
