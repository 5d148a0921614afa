import AppStoreAPI
import AppStoreModels
import Foundation
import LocalEnvironment
import LoopbackServerAPI
import MatrixEngine
import MatrixModel
import SignedData
import Signing
import StoreSimulator

/// One case against the team's backend: the embedded store plays the App Store and the reference app plays the
/// app on the devices, exactly as in a `local` run (``LocalSession``), while every App Store Server Notification
/// the store sends is posted to the backend, and the backend, not the app, answers which tiers the account has.
///
/// Per step: the step is performed on the store and the devices; each notification the store sent (for any
/// account of the case) is posted as the delivery mode says; the access endpoint is asked for the acting account;
/// its answer is the observed `access`, and the app's access is kept beside it. Balances are the app's and are
/// not observed. A notification the backend never acknowledges makes the step fail.
public final class ServerSession: CaseSession {
    let local: LocalSession
    let settings: ServerSettings
    let identifierSpace: Int64
    var random: SeededRandom
    /// Copies of the previous step's notifications, delivered again at the start of the next (`duplicated`).
    var heldDuplicates: [OutgoingNotification] = []
    var sentPrepared = false
    /// What the loopback App Store Server API answers from, told of every delivery.
    let apiState: ServerAPIState?

    /// The backend the runner started, when it did.
    let backend: BackendWatch?

    init(local: LocalSession, settings: ServerSettings, identifierSpace: Int64, apiState: ServerAPIState?, backend: BackendWatch? = nil) {
        self.local = local
        self.settings = settings
        self.identifierSpace = identifierSpace
        self.apiState = apiState
        self.backend = backend
        random = SeededRandom(seed: settings.seed, caseID: local.matrixCase.id)
    }

    /// The token the account's purchases carry.
    func appAccountToken(_ account: String) -> String {
        AppAccountTokens.token(run: settings.runIdentity, caseID: local.matrixCase.id, account: account)
    }

    /// Performs the step and its exchange with the backend. When the backend the runner started no longer runs
    /// and listens on its port (checked before the step and after its exchange), the step is not recorded and
    /// the case stops as a cancelled one does: what another process answered is not the backend's.
    ///
    /// - Throws: `CancellationError` when cancelled or when the backend is lost (``ServerAdapter/backendProblem``
    ///   says why); ``AdapterError`` for the step's error.
    public func perform(_ step: Step, index: Int) async throws -> StepOutcome {
        if let backend, backend.lost != nil { throw CancellationError() }
        do {
            let outcome = try await exchange(step, index: index)
            if let backend, await !backend.check() { throw CancellationError() }
            return outcome
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            // An error of the step may be the backend's end: then it is that, not the step's.
            if let backend, await !backend.check() { throw CancellationError() }
            throw error
        }
    }

    func exchange(_ step: Step, index: Int) async throws -> StepOutcome {
        let account = step.account ?? local.matrixCase.account
        var pending: [OutgoingNotification] = []
        if !sentPrepared {
            sentPrepared = true
            do {
                pending += try local.withStore { store in
                    try store.preparedNotifications(identifierSpace: identifierSpace) { try settings.pki.sign(payload: $0) }
                }
            } catch {
                throw AdapterError("cannot sign the notifications of what the accounts owned before the case: \(error)")
            }
        }
        let firstNew = local.withStore { $0.notifications.count }
        var performed = step
        if step.action == .purchase, step.appAccountToken == nil { performed.appAccountToken = appAccountToken(account) }
        let outcome = try await local.perform(performed, index: index)
        guard case .observed(var observation, let modelled) = outcome else { return outcome }

        let stepNotifications = try signNew(from: firstNew, reusing: observation.signedData)
        var ordered = stepNotifications
        if settings.delivery == .shuffled { ordered.shuffle(using: &random) }
        if !heldDuplicates.isEmpty {
            // The late copies go among this step's notifications, each at a random place.
            for copy in heldDuplicates {
                ordered.insert(copy, at: Int.random(in: 0...ordered.count, using: &random))
            }
            heldDuplicates = []
        }
        pending += ordered
        if settings.delivery == .duplicated {
            let copies = stepNotifications.map { notification in
                var copy = notification
                copy.origin = "duplicate"
                return copy
            }
            if index + 1 < local.matrixCase.steps.count { heldDuplicates = copies } else { pending += copies }
        }
        // The step's requests to the backend end by this time, whatever the backend does (the store's and the app's
        // work before them is not the backend's time).
        let deadline = ContinuousClock.now + settings.stepLimit
        let (deliveries, delivered) = try await settings.poster.deliver(pending, mode: settings.delivery, deadline: deadline)
        guard delivered else { throw overStepLimit(deliveries) }
        if let apiState {
            for delivery in deliveries where delivery.fault == nil {
                apiState.recordDelivery(caseID: local.matrixCase.id, account: delivery.account, notificationUUID: delivery.notificationUUID,
                                        notificationType: delivery.notificationType, subtype: delivery.subtype, signedDate: delivery.signedDate,
                                        signedPayload: delivery.signedPayload,
                                        attempts: delivery.attempts.map { SendAttemptItem(attemptDate: MillisecondsDate($0.attemptDate), sendAttemptResult: $0.sendAttemptResult) })
            }
        }

        let (originals, storeTime) = local.withStore { store in
            var seen = Set<String>()
            return (store.transactions(account: account).map(\.originalTransactionId).filter { seen.insert($0).inserted }, store.now)
        }
        var faultDeliveries: [NotificationDelivery] = []
        var accessBefore: (access: [String], queries: [AccessQuery])?
        if settings.signingFaults, let genuine = stepNotifications.first {
            // The access the genuine notifications left, then the faults, sent once each (the App Store would not
            // have sent them at all), then the access again.
            accessBefore = try await settings.access.access(account: account, appAccountToken: appAccountToken(account),
                                                            originalTransactionIds: originals, storeTime: storeTime, deadline: deadline,
                                                            stepLimit: settings.stepLimit)
            let faulted: [OutgoingNotification]
            do {
                guard let faultPKI = FaultPKI.shared else { throw SignedDataError(.invalidCertificate, "the test PKI does not load") }
                faulted = try SigningFault.allCases.map { try $0.apply(to: genuine, pki: settings.pki, faultPKI: faultPKI) }
            } catch {
                throw AdapterError("cannot make the --signing-faults notifications: \(error)")
            }
            let (sent, complete) = try await settings.poster.deliver(faulted, mode: .sandbox, deadline: deadline)
            guard complete else { throw overStepLimit(sent) }
            faultDeliveries = sent
        }
        let (access, queries) = try await settings.access.access(account: account, appAccountToken: appAccountToken(account),
                                                                 originalTransactionIds: originals, storeTime: storeTime, deadline: deadline,
                                                                 stepLimit: settings.stepLimit)
        observation.server = ServerExchange(deliveries: deliveries + faultDeliveries, accessQueries: (accessBefore?.queries ?? []) + queries,
                                            appAccess: observation.access)
        observation.access = access
        observation.balance = [:]
        observation.notObserved = Array(Set((observation.notObserved ?? []) + ["balance"])).sorted()
        var conflicts = deliveries.filter { !$0.acknowledged }.map(Self.neverAcknowledged)
        conflicts += faultDeliveries.filter(\.acknowledged).map(Self.acceptedFault)
        if let accessBefore, accessBefore.access.sorted() != access.sorted() {
            conflicts.append("the backend's access changed from \(Judge.render(accessBefore.access.sorted())) to \(Judge.render(access.sorted())) after notifications a correct "
                             + "server refuses (--signing-faults)")
        }
        if !conflicts.isEmpty { observation.conflicts = (observation.conflicts ?? []) + conflicts }
        return .observed(observation, modelledWallTimeMs: modelled)
    }

    /// The step's error when its deliveries reached the step's limit before every attempt was made.
    func overStepLimit(_ deliveries: [NotificationDelivery]) -> AdapterError {
        let attempts = deliveries.map(\.attempts.count).reduce(0, +)
        let open = deliveries.filter { !$0.acknowledged }.count
        return AdapterError("the backend did not answer this step's notifications within \(settings.stepLimit) (4 × --step-timeout \(settings.timeout)): "
                            + "\(attempts) attempt\(attempts == 1 ? "" : "s") made, \(open) of \(deliveries.count) notification\(deliveries.count == 1 ? "" : "s") "
                            + "not acknowledged, the rest not attempted; answer each notification within --step-timeout")
    }

    /// "the backend never acknowledged DID_RENEW (…): 6 attempts, UNSUCCESSFUL_HTTP_RESPONSE_CODE (HTTP 500)".
    static func neverAcknowledged(_ delivery: NotificationDelivery) -> String {
        let last = delivery.attempts.last
        let reason = last.map { $0.sendAttemptResult + ($0.httpStatus.map { " (HTTP \($0))" } ?? "") } ?? "no attempt"
        return "the backend never acknowledged \(delivery.name) \(delivery.notificationUUID) for \(delivery.account): "
            + "\(delivery.attempts.count) attempt\(delivery.attempts.count == 1 ? "" : "s"), the last \(reason); "
            + "the App Store keeps only a 200–206 answer as delivered"
    }

    /// "the backend accepted a notification a correct server refuses (wrongChain, REFUND …): HTTP 200".
    static func acceptedFault(_ delivery: NotificationDelivery) -> String {
        let status = delivery.attempts.last?.httpStatus.map { "HTTP \($0)" } ?? "SUCCESS"
        return "the backend accepted a notification a correct server refuses (\(delivery.fault ?? "signing fault"), \(delivery.notificationType) "
            + "\(delivery.notificationUUID) for \(delivery.account)): \(status); verify the chain to the trusted root, Apple's marker OIDs, "
            + "the signature, the bundle id and the environment, and answer a status outside 200–206"
    }

    /// The notifications the store sent since `firstNew`, signed: the acting account's are the JWS its
    /// observation already carries (the very data in evidence), every other account's are signed here.
    func signNew(from firstNew: Int, reusing signedData: [SignedItem]) throws -> [OutgoingNotification] {
        var byUUID: [String: String] = [:]
        for item in signedData where item.kind == "notification" {
            if let payload = try? JWS.decodePayload(item.jws),
               let decoded = try? JSONDecoder().decode(ResponseBodyV2DecodedPayload.self, from: payload), let uuid = decoded.notificationUUID {
                byUUID[uuid] = item.jws
            }
        }
        let signer = settings.pki
        return try local.withStore { store in
            try store.notifications[min(firstNew, store.notifications.count)...].map { notification in
                var jws = byUUID[notification.notificationUUID]
                if jws == nil {
                    jws = try store.sign(touched: [], notifications: [notification], with: SimulatorPayloadSigner(pki: signer))
                        .first { $0.kind == "notification" }?.jws
                }
                guard let jws else { throw AdapterError("notification \(notification.notificationUUID) could not be signed") }
                return OutgoingNotification(notificationUUID: notification.notificationUUID, notificationType: notification.notificationType,
                                            subtype: notification.subtype, signedDate: notification.signedDate, account: notification.account,
                                            origin: "step", signedPayload: jws)
            }
        }
    }

    public func close() async {
        await local.close()
    }
}
