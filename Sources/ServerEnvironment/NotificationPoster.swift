import Foundation
import LoopbackHTTP
import MatrixModel

/// A notification ready to post: the signed payload and what evidence says about it.
struct OutgoingNotification: Sendable, Hashable {
    var notificationUUID: String
    var notificationType: String
    var subtype: String?
    var signedDate: Int64
    var account: String
    var origin: String
    var fault: String? = nil
    var signedPayload: String

    /// The body Apple posts: `{"signedPayload": JWS}` (responseBodyV2).
    /// Apple: https://developer.apple.com/documentation/appstoreservernotifications/responsebodyv2
    var body: [UInt8] {
        // A compact JWS is base64url and dots: nothing in it needs escaping in a JSON string.
        Array(#"{"signedPayload":""#.utf8) + Array(signedPayload.utf8) + Array(#""}"#.utf8)
    }

    var record: NotificationDelivery {
        NotificationDelivery(notificationUUID: notificationUUID, notificationType: notificationType, subtype: subtype, signedDate: signedDate,
                             account: account, origin: origin, fault: fault, signedPayload: signedPayload)
    }
}

/// Posts notifications to the backend's notification URL as the App Store does, attempt by attempt, and
/// classifies each attempt with Apple's `sendAttemptResult` values.
struct NotificationPoster: Sendable {
    var url: LoopbackURL
    var limits: HTTPLimits

    /// One attempt at `attemptDate` (the store's time it stands for).
    ///
    /// 200–206 is `SUCCESS`; any other status `UNSUCCESSFUL_HTTP_RESPONSE_CODE` (redirects are not followed, the
    /// runner sends only to 127.0.0.1). Without a status: `TIMED_OUT` when the time limit passed, `SOCKET_ISSUE`
    /// when the connection was refused or reset, `NO_RESPONSE` when it closed before any answer, `PREMATURE_CLOSE`
    /// in the middle of one, `INVALID_RESPONSE` for an answer that is not HTTP/1.1 or over the limits, `OTHER`
    /// otherwise. Apple documents the values, not which failure gets which: this mapping is a choice.
    /// Apple: https://developer.apple.com/documentation/appstoreserverapi/sendattemptresult
    ///
    /// - Parameter timeout: how long the attempt may take, when less than the limits' timeout.
    /// - Returns: the attempt, or `nil` when the task was cancelled before it ended (no attempt is recorded).
    func attempt(_ notification: OutgoingNotification, at attemptDate: Int64, timeout: Duration? = nil) async -> DeliveryAttempt? {
        let request = HTTPRequest(method: "POST", target: url.target,
                                  headers: [("Content-Type", "application/json"), ("User-Agent", "App Store Server Notifications (StoreKit Matrix)")],
                                  body: notification.body)
        var limits = limits
        if let timeout { limits.timeout = min(limits.timeout, timeout) }
        switch await LoopbackHTTPClient.send(request, port: url.port, limits: limits) {
        case .success(let response):
            if (200...206).contains(response.status) {
                return DeliveryAttempt(attemptDate: attemptDate, sendAttemptResult: "SUCCESS", httpStatus: response.status)
            }
            let excerpt = response.body.isEmpty ? "" : ": " + Self.excerpt(response.body)
            return DeliveryAttempt(attemptDate: attemptDate, sendAttemptResult: "UNSUCCESSFUL_HTTP_RESPONSE_CODE", httpStatus: response.status,
                                   detail: "HTTP \(response.status)\(excerpt)")
        case .failure(.cancelled):
            return nil
        case .failure(let failure):
            let result: String
            switch failure {
            case .cancelled: return nil
            case .socket(.timedOut): result = "TIMED_OUT"
            case .socket(.refused), .socket(.reset): result = "SOCKET_ISSUE"
            case .closedBeforeMessage: result = "NO_RESPONSE"
            case .closedInMessage: result = "PREMATURE_CLOSE"
            case .malformed, .tooLarge: result = "INVALID_RESPONSE"
            case .socket(.system): result = "OTHER"
            }
            return DeliveryAttempt(attemptDate: attemptDate, sendAttemptResult: result, detail: "\(url): \(failure)")
        }
    }

    /// Delivers `notifications` in rounds: every first attempt in order, then each failed one's first retry in
    /// order, and so on, up to `mode`'s retries. The store's clock does not move: each attempt records the time
    /// the App Store would make it.
    ///
    /// Every attempt ends by `deadline` (the step's bound): one that would start later is not made, and
    /// `complete` is false. A cancelled task (a signal) stops at once.
    ///
    /// - Throws: `CancellationError` when the task is cancelled.
    func deliver(_ notifications: [OutgoingNotification], mode: DeliveryMode,
                 deadline: ContinuousClock.Instant = .now + .seconds(86_400)) async throws -> (records: [NotificationDelivery], complete: Bool) {
        var records = notifications.map(\.record)
        var nextDate = notifications.map(\.signedDate)
        var open = Array(notifications.indices)
        for round in 0...mode.retryDelays.count {
            var stillOpen: [Int] = []
            for index in open {
                let remaining = ContinuousClock.now.duration(to: deadline)
                guard remaining > .zero else { return (records, false) }
                if round > 0 { nextDate[index] += mode.retryDelays[round - 1] }
                guard let attempt = await attempt(notifications[index], at: nextDate[index], timeout: remaining) else { throw CancellationError() }
                try Task.checkCancellation()
                records[index].attempts.append(attempt)
                if attempt.sendAttemptResult != "SUCCESS" { stillOpen.append(index) }
            }
            open = stillOpen
            if open.isEmpty { break }
        }
        return (records, true)
    }

    /// At most 200 characters of an untrusted body, control characters escaped.
    static func excerpt(_ bytes: [UInt8]) -> String {
        let text = String(decoding: bytes.prefix(400), as: UTF8.self)
        var result = ""
        for scalar in text.unicodeScalars.prefix(200) {
            result += scalar.value < 0x20 || scalar.value == 0x7f ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
        }
        return bytes.count > 400 || text.unicodeScalars.count > 200 ? result + "…" : result
    }
}
