/// The App Store Server API's numeric error codes (the `errorCode` of an error response body), with Apple's
/// names, whether Apple documents them as retryable, and what to do about each.
///
/// Codes Apple adds later are kept as their number; ``name`` and ``advice`` are then `nil` and Apple's own
/// `errorMessage` tells the story.
///
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/error-codes
public struct ServerAPIErrorCode: RawRepresentable, Hashable, Sendable {
    /// The number, e.g. 4040010.
    public var rawValue: Int64

    /// Wraps a number.
    public init(rawValue: Int64) {
        self.rawValue = rawValue
    }

    /// Apple's name for the code (e.g. `TransactionIdNotFoundError`), when known.
    public var name: String? { Self.table[rawValue]?.name }

    /// What to check or do, when known.
    public var advice: String? { Self.table[rawValue]?.advice }

    /// Whether Apple documents the code as temporary ("…, but you can try again"): 4040002, 4040004, 4040006
    /// and 5000001. 4290000 (rate limit) is retried separately, honouring `Retry-After`.
    public var isRetryable: Bool { Self.retryable.contains(rawValue) }

    /// Whether the code says something was not found (`404xxxx`).
    public var isNotFound: Bool { rawValue / 10_000 == 404 }

    /// 4000006 InvalidTransactionIdError.
    public static let invalidTransactionId = ServerAPIErrorCode(rawValue: 4_000_006)
    /// 4040010 TransactionIdNotFoundError.
    public static let transactionIdNotFound = ServerAPIErrorCode(rawValue: 4_040_010)
    /// 4290000 RateLimitExceededError.
    public static let rateLimitExceeded = ServerAPIErrorCode(rawValue: 4_290_000)
    /// 5000000 GeneralInternalError.
    public static let generalInternal = ServerAPIErrorCode(rawValue: 5_000_000)
    /// 5000001 GeneralInternalRetryableError.
    public static let generalInternalRetryable = ServerAPIErrorCode(rawValue: 5_000_001)

    private static let retryable: Set<Int64> = [4_040_002, 4_040_004, 4_040_006, 5_000_001]

    private static let table: [Int64: (name: String, advice: String)] = [
        4_000_000: ("GeneralBadRequestError", "the request is invalid; check its parameters"),
        4_000_002: ("InvalidAppIdentifierError", "the app identifier is invalid; check the bundle id in the credentials"),
        4_000_005: ("InvalidRequestRevisionError", "the revision token is invalid; start paging again without one"),
        4_000_006: ("InvalidTransactionIdError", "the transaction id is not a valid identifier; use the transactionId or originalTransactionId of a signed transaction"),
        4_000_008: ("InvalidOriginalTransactionIdError", "the original transaction id is invalid"),
        4_000_009: ("InvalidExtendByDaysError", "the extend-by-days value is invalid"),
        4_000_010: ("InvalidExtendReasonCodeError", "the extension reason code is invalid"),
        4_000_011: ("InvalidRequestIdentifierError", "the request identifier is invalid"),
        4_000_012: ("StartDateTooFarInPastError", "the start date is too far in the past; notification history reaches back 180 days"),
        4_000_013: ("StartDateAfterEndDateError", "the start date is not before the end date"),
        4_000_014: ("InvalidPaginationTokenError", "the pagination token is invalid; start again without one"),
        4_000_015: ("InvalidStartDateError", "the start date is invalid"),
        4_000_016: ("InvalidEndDateError", "the end date is invalid"),
        4_000_017: ("PaginationTokenExpiredError", "the pagination token expired; start again without one"),
        4_000_018: ("InvalidNotificationTypeError", "the notification type or subtype is invalid"),
        4_000_019: ("MultipleFiltersSuppliedError", "give either a transaction id or a notification type, not both"),
        4_000_020: ("InvalidTestNotificationTokenError", "the test notification token is invalid"),
        4_000_021: ("InvalidSortError", "the sort parameter is invalid; use ASCENDING or DESCENDING"),
        4_000_022: ("InvalidProductTypeError", "the product type is invalid; use AUTO_RENEWABLE, NON_RENEWABLE, CONSUMABLE or NON_CONSUMABLE"),
        4_000_023: ("InvalidProductIdError", "the product id parameter is invalid"),
        4_000_024: ("InvalidSubscriptionGroupIdentifierError", "the subscription group identifier is invalid"),
        4_000_025: ("InvalidExcludeRevokedError", "the exclude-revoked parameter is invalid"),
        4_000_026: ("InvalidInAppOwnershipTypeError", "the in-app ownership type is invalid; use PURCHASED or FAMILY_SHARED"),
        4_000_027: ("InvalidEmptyStorefrontCountryCodeListError", "a storefront country code list is empty"),
        4_000_028: ("InvalidStorefrontCountryCodeError", "a storefront country code is invalid"),
        4_000_030: ("InvalidRevokedError", "the revoked parameter is invalid; use true or false"),
        4_000_031: ("InvalidStatusError", "the status parameter is invalid; use 1 to 5"),
        4_000_032: ("InvalidAccountTenureError", "the account tenure is invalid"),
        4_000_033: ("InvalidAppAccountTokenError", "the app account token is invalid"),
        4_000_034: ("InvalidConsumptionStatusError", "the consumption status is invalid"),
        4_000_035: ("InvalidCustomerConsentedError", "the customer-consented value is invalid"),
        4_000_036: ("InvalidDeliveryStatusError", "the delivery status is invalid"),
        4_000_037: ("InvalidLifetimeDollarsPurchasedError", "the lifetime dollars purchased value is invalid"),
        4_000_038: ("InvalidLifetimeDollarsRefundedError", "the lifetime dollars refunded value is invalid"),
        4_000_039: ("InvalidPlatformError", "the platform value is invalid"),
        4_000_040: ("InvalidPlayTimeError", "the play time value is invalid"),
        4_000_041: ("InvalidSampleContentProvidedError", "the sample-content-provided value is invalid"),
        4_000_042: ("InvalidUserStatusError", "the user status value is invalid"),
        4_000_043: ("InvalidTransactionNotConsumableError", "the transaction is not a consumable"),
        4_000_047: ("InvalidTransactionTypeNotSupportedError", "the endpoint does not support this kind of in-app purchase"),
        4_000_048: ("AppTransactionIdNotSupportedError", "the endpoint does not accept an app transaction id; use a transaction id"),
        4_000_183: ("InvalidAppAccountTokenUUIDError", "the app account token is not a UUID"),
        4_000_185: ("FamilyTransactionNotSupportedError", "the endpoint does not support Family Sharing transactions"),
        4_000_187: ("TransactionIdIsNotOriginalTransactionIdError", "the endpoint needs an original transaction id"),
        4_030_004: ("SubscriptionExtensionIneligibleError", "the subscription's state does not allow a renewal-date extension"),
        4_030_005: ("SubscriptionMaxExtensionError", "the subscription already has the maximum number of extensions"),
        4_030_007: ("FamilySharedSubscriptionExtensionIneligibleError", "a Family Sharing subscription cannot be extended directly"),
        4_040_001: ("AccountNotFoundError", "the App Store account was not found"),
        4_040_002: ("AccountNotFoundRetryableError", "the App Store account was not found yet; try again"),
        4_040_003: ("AppNotFoundError", "the app was not found; check the bundle id and the environment (sandbox or production)"),
        4_040_004: ("AppNotFoundRetryableError", "the app was not found yet; try again"),
        4_040_005: ("OriginalTransactionIdNotFoundError", "the original transaction id does not exist in this environment; a Sandbox or TestFlight purchase is only in the sandbox environment"),
        4_040_006: ("OriginalTransactionIdNotFoundRetryableError", "the original transaction id was not found yet; try again"),
        4_040_007: ("ServerNotificationUrlNotFoundError", "no App Store Server Notifications URL is set for this environment; set one in App Store Connect (App Information)"),
        4_040_008: ("TestNotificationNotFoundError", "the test notification token expired or its status is not available yet"),
        4_040_009: ("StatusRequestNotFoundError", "no renewal-date extension request matches"),
        4_040_010: ("TransactionIdNotFoundError", "the transaction id does not exist in this environment; a Sandbox or TestFlight purchase is only in the sandbox environment"),
        4_040_019: ("AppTransactionDoesNotExistError", "no app transaction exists for this customer"),
        4_290_000: ("RateLimitExceededError", "the rate limit was exceeded (Sandbox allows 10 % of Production's); wait until Retry-After"),
        5_000_000: ("GeneralInternalError", "Apple reported an internal error; try again later"),
        5_000_001: ("GeneralInternalRetryableError", "Apple reported a temporary internal error; try again"),
    ]
}
