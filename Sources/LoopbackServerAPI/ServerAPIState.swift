import AppStoreAPI
import Foundation
import SimulatedStoreKit
import StoreSimulator
import Threading

/// What the loopback App Store Server API answers from: every case's store of the run (registered when the case
/// starts, kept until the run ends), the notifications the runner delivered for each with their attempts, and the
/// test notifications the backend asked for.
///
/// Cases use identifier spaces of their own, so a transaction id names one case's store; a customer is one
/// account of one case.
public final class ServerAPIState: Sendable {
    struct Delivered: Sendable {
        var caseID: String
        var account: String
        var notificationUUID: String
        var notificationType: String
        var subtype: String?
        var signedDate: Int64
        var signedPayload: String
        var attempts: [SendAttemptItem]

        var reachedServer: Bool { attempts.contains { $0.sendAttemptResult == "SUCCESS" } }
    }

    struct TestNotification: Sendable {
        var signedPayload: String
        /// `nil` until the attempt has been made.
        var attempts: [SendAttemptItem]?
    }

    private struct State {
        var stores: [(caseID: String, store: SimulatedStore)] = []
        var delivered: [Delivered] = []
        var deliveredIndex: [String: Int] = [:]
        var tests: [String: TestNotification] = [:]
        /// The paging tokens (`revision`, `paginationToken`) answered so far.
        var issuedTokens: Set<String> = []
    }

    private let state = Locked(State())

    public init() {}

    /// Makes `store` answer for `caseID` from now on.
    public func register(caseID: String, store: SimulatedStore) {
        state.withLock { $0.stores.append((caseID, store)) }
    }

    /// Records a notification the runner delivered (or tried to) for `account` of `caseID`, with every attempt; a
    /// notification delivered again (the same `notificationUUID`) adds its attempts to the first record, as the App
    /// Store's history keeps one item per notification.
    /// Apple: https://developer.apple.com/documentation/appstoreserverapi/notificationhistoryresponseitem
    public func recordDelivery(caseID: String, account: String, notificationUUID: String, notificationType: String, subtype: String?,
                               signedDate: Int64, signedPayload: String, attempts: [SendAttemptItem]) {
        state.withLock { state in
            if let index = state.deliveredIndex[notificationUUID] {
                state.delivered[index].attempts += attempts
                return
            }
            state.deliveredIndex[notificationUUID] = state.delivered.count
            state.delivered.append(Delivered(caseID: caseID, account: account, notificationUUID: notificationUUID, notificationType: notificationType,
                                             subtype: subtype, signedDate: signedDate, signedPayload: signedPayload, attempts: attempts))
        }
    }

    var stores: [(caseID: String, store: SimulatedStore)] { state.withLock { $0.stores } }
    var delivered: [Delivered] { state.withLock { $0.delivered } }

    /// The case and account whose store holds transaction `id`, with that store.
    func customer(of transactionId: String) -> (caseID: String, account: String, store: SimulatedStore)? {
        for (caseID, store) in stores {
            if let account = store.withStore({ $0.transaction(transactionId)?.account }) { return (caseID, account, store) }
        }
        return nil
    }

    /// The latest store time of the run (ms), or `fallback` before any case started.
    func latestStoreTime(fallback: Int64) -> Int64 {
        stores.map { $0.store.withStore { $0.now } }.max() ?? fallback
    }

    /// Paging tokens kept per run. A token is a kind letter and an offset no larger than a customer's count of
    /// items, so a run issues few; past this many, later pages are still answered but their tokens are refused.
    static let maximumIssuedTokens = 100_000

    /// Remembers `token` as answered by this server.
    func issue(token: String) {
        state.withLock { state in
            if state.issuedTokens.count < Self.maximumIssuedTokens { state.issuedTokens.insert(token) }
        }
    }

    /// Whether this server answered `token` before.
    func issued(_ token: String) -> Bool {
        state.withLock { $0.issuedTokens.contains(token) }
    }

    /// Test notifications kept per run; more requests get RateLimitExceededError, so a backend that asks in a loop
    /// cannot grow the runner without bound.
    static let maximumTests = 1000

    /// Keeps a test notification; `false` once ``maximumTests`` are kept.
    func addTest(token: String, signedPayload: String) -> Bool {
        state.withLock { state in
            guard state.tests.count < Self.maximumTests else { return false }
            state.tests[token] = TestNotification(signedPayload: signedPayload)
            return true
        }
    }

    func finishTest(token: String, attempts: [SendAttemptItem]) {
        state.withLock { $0.tests[token]?.attempts = attempts }
    }

    func test(token: String) -> TestNotification? {
        state.withLock { $0.tests[token] }
    }
}
