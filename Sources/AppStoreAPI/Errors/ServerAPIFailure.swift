import Foundation

/// Reads an App Store Server API error answer: the HTTP status, the `{"errorCode", "errorMessage"}` body and
/// the `Retry-After` header (a UNIX time in milliseconds).
///
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/error-codes and
/// https://developer.apple.com/documentation/appstoreserverapi/identifying-rate-limits
enum ServerAPIFailure {
    static func interpret(_ answer: HTTPAnswer, _ request: APIRequest, _ redaction: Redaction, _ now: Date) -> AppStoreAPIError {
        let payload = try? JSONDecoder().decode(ServerAPIErrorPayload.self, from: answer.body)
        let code = payload?.errorCode.map(ServerAPIErrorCode.init(rawValue:))
        let retryAfter = answer.header("Retry-After").flatMap { RetryPolicy.retryAfterDate($0, now: now) }
        var error = AppStoreAPIError(.unexpectedStatus, "", httpStatus: answer.status, appleErrorCode: code?.rawValue,
                                     appleErrorName: code?.name, appleErrorMessage: payload?.errorMessage.map(redaction.scrub),
                                     retryAfter: retryAfter)
        let advice = code?.advice
        switch answer.status {
        case 401:
            error.code = .unauthorized
            error.message = "Apple refused the token: check the issuer id, the key id and the .p8 key, that the key is an In-App Purchase key "
                + "(App Store Server API access) of this team, and that the bundle id is the app's; the token may also have expired or not be valid yet "
                + "when the system clock is wrong"
        case 403:
            error.code = .forbidden
            error.message = "the key may not use this endpoint; use an active In-App Purchase key of the app's team"
        case 404:
            error.code = .notFound
            error.message = advice ?? "nothing was found; check the id and the environment (Sandbox and TestFlight purchases exist only in sandbox)"
            error.isRetryable = code?.isRetryable ?? false
        case 429:
            error.code = .rateLimited
            error.message = advice ?? "the rate limit was exceeded; wait until Retry-After and send fewer requests"
            error.isRetryable = true
        case 400..<500:
            error.code = code?.isNotFound == true ? .notFound : .badRequest
            error.message = advice ?? "Apple refused the request as invalid"
            error.isRetryable = code?.isRetryable ?? false
        case 500..<600:
            error.code = .serverError
            error.message = advice ?? "Apple's server failed (HTTP \(answer.status)); try again later"
            error.isRetryable = true
        default:
            error.message = "Apple answered with HTTP \(answer.status), which this endpoint does not document"
        }
        return error
    }
}
