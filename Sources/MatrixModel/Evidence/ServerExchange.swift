/// What a `server` run exchanged with the team's backend during one step: every App Store Server Notification
/// it posted with each attempt, and every access request with its answer. Everything the backend answered is
/// recorded bounded and with control characters escaped.
///
/// Apple: https://developer.apple.com/documentation/appstoreservernotifications/responding-to-app-store-server-notifications
public struct ServerExchange: Sendable, Hashable, Codable {
    /// Each notification posted during the step, in the order of its first attempt.
    public var deliveries: [NotificationDelivery]
    /// Each request to the access endpoint, in order.
    public var accessQueries: [AccessQuery]
    /// The access the app on the device granted (the reference app), beside the server's.
    public var appAccess: [String]?

    public init(deliveries: [NotificationDelivery] = [], accessQueries: [AccessQuery] = [], appAccess: [String]? = nil) {
        self.deliveries = deliveries
        self.accessQueries = accessQueries
        self.appAccess = appAccess
    }
}

/// One notification as it was posted to the backend: what it is, why it was sent, and every attempt.
public struct NotificationDelivery: Sendable, Hashable, Codable {
    public var notificationUUID: String
    public var notificationType: String
    public var subtype: String?
    /// When the App Store signed it, ms since 1970; retries keep it.
    public var signedDate: Int64
    /// The account alias the notification is about.
    public var account: String
    /// Why it was sent: `step` (the step made it), `prepared` (for what the account owned before the case),
    /// `duplicate` (a second delivery of an earlier one, `--delivery duplicated`), `signingFault` (a notification a
    /// correct server rejects, `--signing-faults`).
    public var origin: String
    /// For `signingFault`: which fault (`wrongChain`, `missingMarkerOID`, `wrongBundleId`, `wrongEnvironment`,
    /// `alteredPayload`).
    public var fault: String?
    /// The body's `signedPayload` (compact JWS), as posted.
    public var signedPayload: String
    /// Every attempt, first to last.
    public var attempts: [DeliveryAttempt]

    public init(notificationUUID: String, notificationType: String, subtype: String? = nil, signedDate: Int64, account: String,
                origin: String, fault: String? = nil, signedPayload: String, attempts: [DeliveryAttempt] = []) {
        self.notificationUUID = notificationUUID
        self.notificationType = notificationType
        self.subtype = subtype
        self.signedDate = signedDate
        self.account = account
        self.origin = origin
        self.fault = fault
        self.signedPayload = signedPayload
        self.attempts = attempts
    }

    /// `TYPE` or `TYPE/SUBTYPE`.
    public var name: String { subtype.map { "\(notificationType)/\($0)" } ?? notificationType }

    /// Whether an attempt succeeded (HTTP 200–206).
    public var acknowledged: Bool { attempts.contains { $0.sendAttemptResult == "SUCCESS" } }
}

/// One attempt to post a notification, with Apple's `sendAttemptResult` value.
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/sendattemptitem
public struct DeliveryAttempt: Sendable, Hashable, Codable {
    /// When the App Store would make the attempt, ms since 1970 on the store's clock: the notification's time, then
    /// each retry's delay after the previous attempt (retries are made at once; the store's clock does not move).
    public var attemptDate: Int64
    /// `SUCCESS`, `TIMED_OUT`, `NO_RESPONSE`, `SOCKET_ISSUE`, `PREMATURE_CLOSE`, `INVALID_RESPONSE`,
    /// `UNSUCCESSFUL_HTTP_RESPONSE_CODE`, `OTHER`.
    public var sendAttemptResult: String
    /// The status the backend answered, when it answered.
    public var httpStatus: Int?
    /// What went wrong, in words, when the attempt did not succeed (bounded, escaped).
    public var detail: String?

    public init(attemptDate: Int64, sendAttemptResult: String, httpStatus: Int? = nil, detail: String? = nil) {
        self.attemptDate = attemptDate
        self.sendAttemptResult = sendAttemptResult
        self.httpStatus = httpStatus
        self.detail = detail
    }
}

/// One request to the backend's access endpoint and what it answered.
public struct AccessQuery: Sendable, Hashable, Codable {
    /// The URL asked, placeholders filled in.
    public var url: String
    /// The original transaction the URL names, when the template has `{originalTransactionId}`.
    public var originalTransactionId: String?
    public var httpStatus: Int?
    /// The tiers the backend answered.
    public var access: [String]?
    /// What went wrong, when the answer could not be used (bounded, escaped).
    public var detail: String?

    public init(url: String, originalTransactionId: String? = nil, httpStatus: Int? = nil, access: [String]? = nil, detail: String? = nil) {
        self.url = url
        self.originalTransactionId = originalTransactionId
        self.httpStatus = httpStatus
        self.access = access
        self.detail = detail
    }
}
