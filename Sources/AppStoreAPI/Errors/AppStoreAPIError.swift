import Foundation

/// A failed call to the App Store Server API or the App Store Connect API, with a message that says what to do.
///
/// The error carries what Apple answered (HTTP status, Apple's numeric `errorCode` or App Store Connect's
/// string code, Apple's message) and how many attempts were made. It never carries a token, the issuer id or
/// key material: every text that came from outside passes through ``Redaction`` first.
///
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/error-codes
public struct AppStoreAPIError: Error, Sendable, CustomStringConvertible {
    /// A stable, extensible kind of failure.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name, e.g. `"unauthorized"`.
        public var rawValue: String

        /// Creates a code from its name.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// HTTP 401: the token was refused (issuer id, key id, key, key type, clock).
        public static let unauthorized = Code(rawValue: "unauthorized")
        /// HTTP 403: the key may not use this endpoint.
        public static let forbidden = Code(rawValue: "forbidden")
        /// HTTP 404 or a `…NotFound` error code: the transaction, tester or app does not exist here.
        public static let notFound = Code(rawValue: "notFound")
        /// HTTP 400 or a `4000xxx` error code: the request itself is wrong.
        public static let badRequest = Code(rawValue: "badRequest")
        /// HTTP 429: the rate limit was exceeded and waiting was not possible or did not help.
        public static let rateLimited = Code(rawValue: "rateLimited")
        /// HTTP 5xx or a `5000xxx` error code that persisted after retries.
        public static let serverError = Code(rawValue: "serverError")
        /// Another HTTP status Apple documents no meaning for.
        public static let unexpectedStatus = Code(rawValue: "unexpectedStatus")
        /// No answer within the request timeout.
        public static let timeout = Code(rawValue: "timeout")
        /// The connection failed (DNS, TLS, refused, offline).
        public static let network = Code(rawValue: "network")
        /// The answer was not the JSON the endpoint documents, or paging did not advance.
        public static let invalidResponse = Code(rawValue: "invalidResponse")
        /// Signed data in the answer did not verify (chain, signature, bundle id or environment).
        public static let verificationFailed = Code(rawValue: "verificationFailed")
        /// The request could not be made from the configuration (no key for this API, no bundle id, bad id).
        public static let configuration = Code(rawValue: "configuration")
        /// A token could not be signed.
        public static let credentials = Code(rawValue: "credentials")
        /// The task was cancelled.
        public static let cancelled = Code(rawValue: "cancelled")

        /// The name.
        public var description: String { rawValue }
    }

    /// Which of Apple's APIs answered.
    public enum API: String, Sendable, Hashable {
        /// `api.storekit.itunes.apple.com` and its sandbox.
        case appStoreServer = "App Store Server API"
        /// `api.appstoreconnect.apple.com`.
        case appStoreConnect = "App Store Connect API"
    }

    /// What kind of failure this is.
    public var code: Code
    /// What happened and what to do next.
    public var message: String
    /// The API, when a request was made.
    public var api: API?
    /// The request, as `METHOD /path` (ids included, no query or headers).
    public var endpoint: String?
    /// The HTTP status of the last answer.
    public var httpStatus: Int?
    /// The App Store Server API's numeric `errorCode` (e.g. 4040010).
    public var appleErrorCode: Int64?
    /// Apple's name for the error: `TransactionIdNotFoundError`, or App Store Connect's `code` (`NOT_FOUND`).
    public var appleErrorName: String?
    /// Apple's own text (`errorMessage`, or App Store Connect's `detail`), scrubbed.
    public var appleErrorMessage: String?
    /// When Apple said the request may be sent again (`Retry-After`).
    public var retryAfter: Date?
    /// Requests sent before giving up (0 when none was sent).
    public var attempts: Int
    /// Whether Apple documents the failure as temporary (a later call may succeed).
    public var isRetryable: Bool
    /// The lower-level cause (a URL error's description), scrubbed.
    public var cause: String?

    /// Creates an error.
    public init(_ code: Code, _ message: String, api: API? = nil, endpoint: String? = nil, httpStatus: Int? = nil,
                appleErrorCode: Int64? = nil, appleErrorName: String? = nil, appleErrorMessage: String? = nil,
                retryAfter: Date? = nil, attempts: Int = 0, isRetryable: Bool = false, cause: String? = nil) {
        self.code = code
        self.message = message
        self.api = api
        self.endpoint = endpoint
        self.httpStatus = httpStatus
        self.appleErrorCode = appleErrorCode
        self.appleErrorName = appleErrorName
        self.appleErrorMessage = appleErrorMessage
        self.retryAfter = retryAfter
        self.attempts = attempts
        self.isRetryable = isRetryable
        self.cause = cause
    }

    /// `API ENDPOINT: message (HTTP 404; Apple 4040010 TransactionIdNotFoundError: "…"; 3 attempts)`.
    public var description: String {
        var text = ""
        if let api { text += api.rawValue }
        if let endpoint { text += (text.isEmpty ? "" : " ") + endpoint }
        text += (text.isEmpty ? "" : ": ") + message
        var details: [String] = []
        if let httpStatus { details.append("HTTP \(httpStatus)") }
        var apple: [String] = []
        if let appleErrorCode { apple.append(String(appleErrorCode)) }
        if let appleErrorName { apple.append(appleErrorName) }
        if !apple.isEmpty || appleErrorMessage != nil {
            details.append("Apple " + apple.joined(separator: " ") + (appleErrorMessage.map { (apple.isEmpty ? "" : ": ") + "\"\($0)\"" } ?? ""))
        }
        if let retryAfter { details.append("retry after \(ISO8601DateFormatter().string(from: retryAfter))") }
        if attempts > 1 { details.append("\(attempts) attempts") }
        if let cause { details.append(cause) }
        return details.isEmpty ? text : text + " (" + details.joined(separator: "; ") + ")"
    }
}
