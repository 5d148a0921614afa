import Foundation
import AppStoreAPI
import AppStoreModels
import LoopbackHTTP
import MatrixJSON

extension ServerAPIResponder {
    /// The body of Get Notification History, every member optional so that a missing one gets its own error code.
    struct HistoryRequestBody: Decodable {
        var startDate: MillisecondsDate?
        var endDate: MillisecondsDate?
        var notificationType: String?
        var notificationSubtype: String?
        var transactionId: String?
        var onlyFailures: Bool?
    }

    /// 180 days, ms: how far back notification history reaches, measured from the customer's store time with a
    /// `transactionId`, else from the run's latest store time (notifications carry store times, not the wall clock's).
    static let historyReach: Int64 = 180 * 86_400_000

    /// Get Notification History: `POST /inApps/v1/notifications/history?paginationToken=…` with a
    /// NotificationHistoryRequest; the notifications the runner delivered in the window (`signedDate` from
    /// `startDate`, before `endDate`), for one customer (`transactionId`) or one `notificationType` and
    /// `notificationSubtype`, only those never answered 200–206 with `onlyFailures`; 20 a page with every send
    /// attempt. Notifications sent with `--signing-faults` are not in it: the App Store did not send them.
    /// Apple: https://developer.apple.com/documentation/appstoreserverapi/get-notification-history
    func notificationHistory(_ request: HTTPRequest) -> HTTPResponse {
        // A member named twice would mean one thing here and another to the backend's own reader: refused.
        guard let body = try? StrictJSON.decode(HistoryRequestBody.self, from: Data(request.body)) else {
            return Self.error(.init(rawValue: 4_000_000), "Bad request: the body is not a NotificationHistoryRequest.")
        }
        guard let start = body.startDate?.milliseconds else { return Self.error(.init(rawValue: 4_000_015), "Invalid start date.") }
        guard let end = body.endDate?.milliseconds else { return Self.error(.init(rawValue: 4_000_016), "Invalid end date.") }
        guard start < end else { return Self.error(.init(rawValue: 4_000_013), "Start date after end date.") }
        if body.transactionId != nil, body.notificationType != nil {
            return Self.error(.init(rawValue: 4_000_019), "Multiple filters supplied.")
        }
        if body.notificationSubtype != nil, body.notificationType == nil {
            return Self.error(.init(rawValue: 4_000_018), "Invalid notification type: a subtype needs a notificationType.")
        }
        var customer: (caseID: String, account: String)?
        var now = state.latestStoreTime(fallback: configuration.now() * 1000)
        if let id = body.transactionId {
            switch self.customer(id) {
            case .failure(let box): return box.response
            case .success(let found):
                customer = (found.caseID, found.account)
                now = found.store.withStore { $0.now }
            }
        }
        if start < now - Self.historyReach {
            return Self.error(.init(rawValue: 4_000_012), "Start date too far in past.")
        }
        let matching = state.delivered.filter { item in
            item.signedDate >= start && item.signedDate < end
                && (customer.map { item.caseID == $0.caseID && item.account == $0.account } ?? true)
                && (body.notificationType.map { item.notificationType == $0 } ?? true)
                && (body.notificationSubtype.map { item.subtype == $0 } ?? true)
                && (body.onlyFailures != true || !item.reachedServer)
        }
        guard let page = PageToken.page(request.query("paginationToken").last, count: matching.count, size: Self.pageSize, kind: "n", state: state) else {
            return Self.error(.init(rawValue: 4_000_014), "Invalid pagination token.")
        }
        let items = matching[page.range].map { NotificationHistoryResponseItem(signedPayload: $0.signedPayload, sendAttempts: $0.attempts) }
        return Self.json(200, NotificationHistoryResponse(paginationToken: page.hasMore ? page.next : nil, hasMore: page.hasMore, notificationHistory: items))
    }

    /// Request a Test Notification: `POST /inApps/v1/notifications/test` signs a `TEST` notification, answers its
    /// `testNotificationToken` at once and posts the notification to the backend's notification URL (one attempt).
    /// Apple: https://developer.apple.com/documentation/appstoreserverapi/request-a-test-notification
    func requestTest() -> HTTPResponse {
        let signedDate = state.latestStoreTime(fallback: configuration.now() * 1000)
        let uuid = UUID().uuidString.lowercased()
        var data = ResponseBodyV2DecodedPayload.NotificationData()
        data.appAppleId = configuration.appAppleId
        data.bundleId = configuration.credentials.bundleId
        data.environment = configuration.environment
        var payload = ResponseBodyV2DecodedPayload()
        payload.notificationType = "TEST"
        payload.notificationUUID = uuid
        payload.data = data
        payload.version = "2.0"
        payload.signedDate = MillisecondsDate(signedDate)
        let jws: String
        do {
            jws = try configuration.pki.sign(payload: Data(payload.compactJSON))
        } catch {
            return signFailure(error)
        }
        // Apple's tokens are an opaque string; this one is the notification's UUID and its signedDate.
        let token = "\(uuid)_\(signedDate)"
        guard state.addTest(token: token, signedPayload: jws) else {
            return Self.error(.rateLimitExceeded, "Rate limit exceeded: this run has sent \(ServerAPIState.maximumTests) test notifications.")
        }
        let send = sendTest
        let state = state
        Task {
            let attempts = await send(jws, signedDate)
            state.finishTest(token: token, attempts: attempts)
        }
        return Self.json(200, SendTestNotificationResponse(testNotificationToken: token))
    }

    /// Get Test Notification Status: `GET /inApps/v1/notifications/test/{testNotificationToken}`; until the attempt
    /// has been made, and for a token this server did not issue, TestNotificationNotFoundError (4040008).
    /// Apple: https://developer.apple.com/documentation/appstoreserverapi/get-test-notification-status
    func testStatus(_ token: String) -> HTTPResponse {
        guard !token.isEmpty, token.utf8.count <= 100 else {
            return Self.error(.init(rawValue: 4_000_020), "Invalid test notification token.")
        }
        guard let test = state.test(token: token), let attempts = test.attempts else {
            return Self.error(.init(rawValue: 4_040_008), "Test notification not found.")
        }
        return Self.json(200, CheckTestNotificationResponse(signedPayload: test.signedPayload, sendAttempts: attempts))
    }
}
