import Foundation

/// Reads an App Store Connect API error answer: the HTTP status and the `{"errors": [{status, code, title,
/// detail}]}` document.
///
/// Apple: https://developer.apple.com/documentation/appstoreconnectapi/interpreting-and-handling-errors
enum ConnectAPIFailure {
    static func interpret(_ answer: HTTPAnswer, _ request: APIRequest, _ redaction: Redaction, _ now: Date) -> AppStoreAPIError {
        let first = (try? JSONDecoder().decode(ConnectErrorResponse.self, from: answer.body))?.errors?.first
        let retryAfter = answer.header("Retry-After").flatMap { RetryPolicy.retryAfterDate($0, now: now) }
        let text = [first?.title, first?.detail].compactMap { $0 }.joined(separator: ": ")
        var error = AppStoreAPIError(.unexpectedStatus, "", httpStatus: answer.status, appleErrorName: first?.code,
                                     appleErrorMessage: text.isEmpty ? nil : redaction.scrub(text), retryAfter: retryAfter)
        switch answer.status {
        case 401:
            error.code = .unauthorized
            error.message = "App Store Connect refused the token: check the issuer id, the key id and the .p8 key, and that the key is an active "
                + "App Store Connect API team key (Users and Access → Integrations → App Store Connect API); the token may also have expired or not be valid yet when the system clock is wrong"
        case 403:
            error.code = .forbidden
            error.message = "the key's role may not manage sandbox testers; use a team key whose role can (App Store Connect Help → Role permissions)"
        case 404:
            error.code = .notFound
            error.message = "no such sandbox tester; list them with `matrix sandbox testers` and check the accounts file"
        case 409, 422:
            error.code = .badRequest
            error.message = "App Store Connect refused the change"
        case 429:
            error.code = .rateLimited
            error.message = "the App Store Connect API rate limit (per key, per hour) was exceeded; wait and send fewer requests"
            error.isRetryable = true
        case 400..<500:
            error.code = .badRequest
            error.message = "App Store Connect refused the request as invalid"
        case 500..<600:
            error.code = .serverError
            error.message = "App Store Connect failed (HTTP \(answer.status)); try again later"
            error.isRetryable = true
        default:
            error.message = "App Store Connect answered with HTTP \(answer.status), which this endpoint does not document"
        }
        return error
    }
}
