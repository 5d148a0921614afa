import Foundation
import HarnessCore
import MatrixModel
import StoreSimulator
import Threading

/// StoreKit on one device of a case: what `Product`, `Transaction` and `AppStore` answer while code runs bound
/// to it.
///
/// The runner binds a session around every call into the app (``run(_:)``, a task-local value that child tasks
/// and `Task {}` inherit). Code that runs outside any binding (a `Task.detached` listener, say) is answered by
/// the only session of the process that is open, and fails with `StoreKitError.unknown` when several are open
/// (cases in parallel): start such tasks with `Task {}` to run cases side by side in one process.
///
/// A session also carries what the runner sets up for the app's next calls: how the customer answers the
/// purchase sheet, and a StoreKit error the next call of a kind fails with.
public final class StoreKitSession: Sendable {
    /// The case's store.
    public let store: SimulatedStore
    /// The device's name, unique in its case.
    public let deviceName: String
    /// The account the device is signed in to.
    public let account: String
    private let state = Locked(State())

    struct State {
        /// How the customer answers the next purchase sheet.
        var nextPurchaseOutcome: PurchaseOutcome = .success
        /// The StoreKit error the next call of a kind fails with.
        var failures: [StoreKitCall: StoreKitFailure] = [:]
        /// What `Product.purchase(options:)` answered last, for the runner.
        var lastPurchase: PurchaseRecord?
        /// Whether the app answered balances with AppUnderTest's default (it implements none).
        var defaultBalances = false
        /// The `Transaction.updates` listeners of the app's current launch.
        var listeners: [UpdatesListener] = []
        /// How many listeners, from the first, were found idle since updates were last delivered: a listener turns
        /// busy only by a delivery, so the check whether all are idle goes on from there (one pass per step, not one
        /// per listener that finishes).
        var idlePrefix = 0
        /// Whether a listener of this launch has received what waited for the device.
        var listenedThisLaunch = false
        /// Runner waits for the listeners to finish what was delivered to them.
        var settleWaiters: [Waiter] = []
        /// Waits for the launch's first listener.
        var listenerWaiters: [Waiter] = []
        /// The last ``Waiter/id`` handed out.
        var lastWaiterID: UInt64 = 0
        /// Calls the app made outside any binding while several sessions were open.
        var unboundCalls: [String] = []
        /// Where the app's process is killed during the next purchase's handling.
        var killPoint: TerminationPoint?
        /// The transaction whose `finish()` kills the app (``TerminationPoint/beforeFinish``).
        var killOnFinish: UInt64?
        /// Whether the app's process was killed; its calls change nothing until the next launch.
        var killed = false
        /// The killed processes' calls, held where each died until the case ends (``close()``): a killed call never
        /// returns into the app while the case runs.
        var dead: [CheckedContinuation<Void, Never>] = []
        /// The app's launches so far; a listener registered by an earlier launch's leftover task is ended.
        var launch = 0
        /// The runner's purchases, each waiting to learn whether it returns or the process dies first.
        var killWatchers: [FirstOf] = []
        var closed = false
    }

    /// The session code is bound to, if any (see the type's documentation).
    @TaskLocal public static var current: StoreKitSession?

    /// The launch of the app the bound code belongs to: a task an earlier launch started (a listener loop that
    /// outlived its quit) is answered as a dead process's.
    @TaskLocal static var boundLaunch: Int?

    /// Sessions that are open, for code that runs outside any binding.
    private static let open = Locked<[ObjectIdentifier: WeakSession]>([:])

    /// Opens a session for `deviceName`, signed in to `account`, on `store`.
    public init(store: SimulatedStore, deviceName: String, account: String) {
        _ = Self.storeTestingHooks
        self.store = store
        self.deviceName = deviceName
        self.account = account
        store.addDevice(deviceName)
        Self.open.withLock { $0[ObjectIdentifier(self)] = WeakSession(self) }
    }

    deinit {
        Self.open.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(self)) }
    }

    /// Closes the session: its listeners end, and code outside a binding no longer reaches it.
    public func close() {
        state.withLock { $0.closed = true }
        endLaunch()
        // The calls of killed launches return now that the case is over: nothing they do can count any more.
        for call in state.withLock({ state in defer { state.dead = [] }; return state.dead }) { call.resume() }
        Self.open.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(self)) }
    }

    /// Runs `body` with StoreKit bound to this session.
    public func run<Result>(_ body: () async throws -> Result) async rethrows -> Result {
        let launch = state.withLock { $0.launch }
        return try await Self.$current.withValue(self) {
            try await Self.$boundLaunch.withValue(launch) { try await body() }
        }
    }

    /// Whether the calling code belongs to an earlier launch of the app than the current one.
    var isFromEarlierLaunch: Bool {
        guard let bound = Self.boundLaunch, Self.current === self else { return false }
        return state.withLock { bound < $0.launch }
    }

    /// The session StoreKit calls answer from: the bound one, else the only open one.
    ///
    /// - Throws: `StoreKitError.unknown` when no session is bound and none or several are open; each open session
    ///   records the call so that the runner reports it.
    static func resolve(for call: String) throws(StoreKitError) -> StoreKitSession {
        if let current {
            // The case ended: a task it started and that outlived it reaches no store.
            guard !current.state.withLock({ $0.closed }) else { throw StoreKitError.unknown }
            return current
        }
        let sessions = open.withLock { $0.values.compactMap(\.session) }
        if sessions.count == 1, let only = sessions.first { return only }
        let problem = "\(call) was called outside the case's tasks while \(sessions.count) StoreKit sessions (devices of cases) were open "
            + "in this process (a Task.detached listener?); start it with Task {}, or run one case at a time with one device"
        for session in sessions {
            session.state.withLock { state in
                // The first few are enough to say what happened; an app that loops on the call cannot grow this.
                if state.unboundCalls.count < 8, !state.unboundCalls.contains(problem) { state.unboundCalls.append(problem) }
            }
        }
        throw StoreKitError.unknown
    }

    // MARK: What the runner sets up

    /// How the customer answers the next purchase sheet on this device.
    public func setNextPurchaseOutcome(_ outcome: PurchaseOutcome) {
        state.withLock { $0.nextPurchaseOutcome = outcome }
    }

    /// Makes the next call of `call` fail with `failure`.
    public func failNext(_ call: StoreKitCall, with failure: StoreKitFailure) {
        state.withLock { $0.failures[call] = failure }
    }

    /// Installs, once per process, the answers of `StoreClock.now`, `TransactionUpdates.waitForListener(within:)`
    /// and the default `balances()` (HarnessCore) for code bound to a session: the bound store's virtual clock, this
    /// session's listener wait, and the note that the app reports no balances. Code bound to no session (and a
    /// process with no session) gets HarnessCore's defaults: `Date()` and a bounded wait.
    private static let storeTestingHooks: Void = StoreTestingHooks.install(StoreTestingHooks(
        now: {
            guard let session = StoreKitSession.current ?? (try? StoreKitSession.resolve(for: "StoreClock.now")) else { return nil }
            return Date(milliseconds: session.store.withStore { $0.now })
        },
        waitForListener: { limit in
            guard let session = StoreKitSession.current else { return nil }
            return await session.waitForListener(within: limit)
        },
        noteDefaultBalances: { StoreKitSession.current?.noteDefaultBalances() }))

    /// The app answered `balances()` with ``AppUnderTest``'s default: it reports no consumable balances.
    func noteDefaultBalances() {
        state.withLock { $0.defaultBalances = true }
    }

    /// Whether the app relies on ``AppUnderTest``'s default `balances()` (it reports no consumable balances).
    public var usesDefaultBalances: Bool { state.withLock { $0.defaultBalances } }

    /// Removes the failures set up with ``failNext(_:with:)`` that no call has met yet, and returns their calls.
    public func takeUnmetFailures() -> [StoreKitCall] {
        state.withLock { state in
            defer { state.failures = [:] }
            return StoreKitCall.allCases.filter { state.failures[$0] != nil }
        }
    }

    /// Kills the app's process at `point` while it handles the next purchase: as `purchase(options:)` returns
    /// (`beforeDelivery`: the app delivers nothing and finishes nothing), or when the app calls `finish()` on the
    /// purchase's transaction (`beforeFinish`: what it did before finishing stays, the transaction stays
    /// unfinished). A killed app's calls change nothing until the runner ends the launch.
    public func killDuringNextPurchase(at point: TerminationPoint?) {
        state.withLock { $0.killPoint = point }
    }

    /// Disarms a kill that did not happen during its step (the app never finished the purchase's transaction), so
    /// that it cannot strike a later step. Returns whether one was armed.
    @discardableResult
    public func disarmKill() -> Bool {
        state.withLock { state in
            defer {
                state.killPoint = nil
                state.killOnFinish = nil
            }
            return state.killPoint != nil || state.killOnFinish != nil
        }
    }

    /// Whether the app's process was killed since the launch began.
    public var wasKilled: Bool { state.withLock { $0.killed } }

    /// Runs `body` (a call into the app) until it returns or the app's process is killed during it; a killed
    /// call is left where the process died and finishes, with nothing it does counting, after ``endLaunch()``.
    ///
    /// - Parameter executor: the executor the call's task prefers (the shared pool by default); a caller on a
    ///   thread of its own passes that thread, so the call and its answer do not wake another.
    /// - Returns: what `body` returned, or `nil` when the process was killed.
    public func runUntilKilled<Result: Sendable>(preferring executor: PreferredExecutor = .sharedPool,
                                                 _ body: @escaping @Sendable () async throws -> Result) async throws -> Result? {
        // One task, the call's: it settles `first` as it ends, and a kill settles it from `die()`.
        let first = FirstOf()
        let call = executor.task {
            defer { first.resume(false) }
            return try await self.run(body)
        }
        let killedFirst = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                first.install(continuation)
                let killed = state.withLock { state -> Bool in
                    if state.killed { return true }
                    state.killWatchers.append(first)
                    return false
                }
                if killed { first.resume(true) }
            }
        } onCancel: {
            // Cancelling the run reaches the app's call.
            call.cancel()
        }
        if killedFirst {
            return nil
        }
        state.withLock { $0.killWatchers.removeAll { $0 === first } }
        return try await call.value
    }

    /// The process dies here: the caller is held until the launch ends.
    private func die() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let watchers = state.withLock { state -> [FirstOf] in
                state.killed = true
                state.dead.append(continuation)
                defer { state.killWatchers = [] }
                return state.killWatchers
            }
            for watcher in watchers { watcher.resume(true) }
        }
    }

    /// What the last `Product.purchase(options:)` answered since ``takeLastPurchase()`` was last called.
    public func takeLastPurchase() -> PurchaseRecord? {
        state.withLock { state in
            defer { state.lastPurchase = nil }
            return state.lastPurchase
        }
    }

    /// Calls made outside any binding while several sessions were open, since the last time this was asked.
    public func takeUnboundCalls() -> [String] {
        state.withLock { state in
            defer { state.unboundCalls = [] }
            return state.unboundCalls
        }
    }

    // MARK: What StoreKit calls use

    /// The customer's answer for a purchase starting now (then back to a plain purchase).
    func takePurchaseOutcome() -> PurchaseOutcome {
        state.withLock { state in
            defer { state.nextPurchaseOutcome = .success }
            return state.nextPurchaseOutcome
        }
    }

    /// Throws the failure set up for `call`, once.
    func checkFailure(_ call: StoreKitCall) throws {
        guard let failure = state.withLock({ $0.failures.removeValue(forKey: call) }) else { return }
        throw failure.error
    }

    func record(_ purchase: PurchaseRecord) {
        state.withLock { $0.lastPurchase = purchase }
    }

    /// Whether a call that changes the store may go ahead: not once the app was killed.
    var isAlive: Bool { !isFromEarlierLaunch && state.withLock { !$0.killed && !$0.closed } }

    /// After a successful purchase of `transaction`: kills the app as set up (see ``killDuringNextPurchase(at:)``).
    /// Returns false when the process died as `purchase(options:)` returned (after the launch ended).
    func survivesPurchase(of transaction: UInt64) async -> Bool {
        let point = state.withLock { state -> TerminationPoint? in
            defer { state.killPoint = nil }
            if state.killPoint == .beforeFinish { state.killOnFinish = transaction }
            return state.killPoint
        }
        guard point == .beforeDelivery else { return true }
        await die()
        return false
    }

    /// Whether `finish()` of `transaction` goes ahead; the finish that kills the app does not (it returns after
    /// the launch ended).
    func mayFinish(_ transaction: UInt64) async -> Bool {
        enum Verdict { case finish, dead, dies }
        let earlier = isFromEarlierLaunch
        let verdict = state.withLock { state -> Verdict in
            if state.killed || state.closed || earlier { return .dead }
            guard state.killOnFinish == transaction else { return .finish }
            state.killOnFinish = nil
            return .dies
        }
        switch verdict {
        case .finish: return true
        case .dead: return false
        case .dies:
            await die()
            return false
        }
    }

    /// Whether `Transaction` values handed out now carry a verification failure (``StoreKitFailure/verification``).
    func takeVerificationFailure() -> VerificationResult<Transaction>.VerificationError? {
        guard case .verification(let error)? = state.withLock({ $0.failures.removeValue(forKey: .verification) }) else { return nil }
        return error
    }

    // MARK: Transaction.updates

    /// Registers a listener of the app's current launch: the account's unfinished transactions arrive first,
    /// then, for the launch's first listener, what waited for the device, each once.
    /// Apple: https://developer.apple.com/documentation/storekit/transaction/updates
    func register(_ listener: UpdatesListener) {
        let earlier = isFromEarlierLaunch
        let (first, waiters) = state.withLock { state -> (Bool?, [Waiter]) in
            guard !state.closed, !earlier else { return (nil, []) }
            state.listeners.append(listener)
            defer {
                state.listenedThisLaunch = true
                state.listenerWaiters = []
            }
            return (!state.listenedThisLaunch, state.listenerWaiters)
        }
        defer { for waiter in waiters { waiter.continuation.resume() } }
        guard let first else {
            listener.end()
            return
        }
        let initial = snapshot { store, updates in
            var delivered = Set<String>()
            var items: [StoreTransaction] = []
            for transaction in store.unfinishedTransactions(account: account) where delivered.insert(transaction.transactionId).inserted {
                items.append(transaction)
            }
            if first {
                updates.deliveredAtStart = delivered
                items += Self.pendingEntries(store, &updates, device: deviceName, account: account)
            }
            return items
        }
        listener.deliver(initial)
        state.withLock { $0.idlePrefix = 0 }
    }

    /// Delivers what arrived for this device since its listeners last received updates, when the app listens:
    /// renewals, purchases on other devices, Ask to Buy approvals, refunds, revocations. Returns how many.
    @discardableResult
    public func deliverPendingUpdates() -> Int {
        let listeners = state.withLock { $0.listeners }
        guard !listeners.isEmpty else { return 0 }
        let items = snapshot { store, updates in
            Self.pendingEntries(store, &updates, device: deviceName, account: account)
        }
        guard !items.isEmpty else { return 0 }
        for listener in listeners { listener.deliver(items) }
        state.withLock { $0.idlePrefix = 0 }
        return items.count
    }

    /// The update-log entries for `device` from its cursor on, skipping those its listener received at its start.
    static func pendingEntries(_ store: AppStoreSimulator, _ updates: inout DeviceUpdates, device: String, account: String) -> [StoreTransaction] {
        var items: [StoreTransaction] = []
        while updates.cursor < store.updateLog.count {
            let entry = store.updateLog[updates.cursor]
            updates.cursor += 1
            guard entry.account == account, entry.excludingDevice != device else { continue }
            if updates.deliveredAtStart.remove(entry.transactionId) != nil { continue }
            if let transaction = store.transaction(entry.transactionId) { items.append(transaction) }
        }
        updates.deliveredAtStart = []
        return items
    }

    /// Transactions picked under the store's lock, as StoreKit hands them to the app.
    private func snapshot(_ pick: (AppStoreSimulator, inout DeviceUpdates) -> [StoreTransaction]) -> [VerificationResult<Transaction>] {
        let (transactions, context) = store.withDevice(deviceName, account: account) { store, updates in
            (pick(store, &updates), SnapshotContext(store))
        }
        let failure = transactions.isEmpty ? nil : takeVerificationFailure()
        return transactions.map { VerificationResult(Transaction($0, context, signer: store.signer), failure: failure) }
    }

    /// Waits until the app's `Transaction.updates` listener of this launch has started (its loop began
    /// iterating), for an app whose listener is a task its launch spawns: call it at the end of
    /// ``AppUnderTest/launch()`` so that what waits at launch reaches the listener before the step is observed.
    /// Returns false when no listener started within `limit`.
    public func waitForListener(within limit: Duration = .seconds(10)) async -> Bool {
        await wait(within: limit, in: .listener) { $0.listenedThisLaunch }
        return state.withLock { $0.listenedThisLaunch }
    }

    /// ``waitForListener(within:)`` for the session the calling code is bound to.
    public static func waitForListener(within limit: Duration = .seconds(10)) async -> Bool {
        await current?.waitForListener(within: limit) ?? false
    }

    /// Waits until every listener of the current launch has taken what was delivered to it and asked for the
    /// next update: the app has handled its updates. Returns false when that takes longer than `limit`.
    public func settle(within limit: Duration = .seconds(10)) async -> Bool {
        await wait(within: limit, in: .settle) { $0.allListenersIdle() }
        return state.withLock { $0.allListenersIdle() }
    }

    /// Why the current launch's listeners have not settled, for the message of a step that waited too long:
    /// e.g. "listener 1 of 1: it took an update and has not asked for the next"; `nil` when they have.
    public var unsettledListeners: String? {
        let listeners = state.withLock { $0.listeners }
        let held = listeners.enumerated().compactMap { index, listener in
            listener.holdUp.map { "listener \(index + 1) of \(listeners.count): \($0)" }
        }
        return held.isEmpty ? nil : held.joined(separator: "; ")
    }

    /// The runner's waits: for the listeners to settle, for a launch's first listener.
    enum WaitQueue {
        case settle, listener
    }

    /// Waits until `ready` holds (checked under the lock), for at most `limit` (kept by the ``Watchdog``, which
    /// costs no task or timer of its own), or until the calling task is cancelled. What makes `ready` hold
    /// resumes the waiters of its queue.
    private func wait(within limit: Duration, in queue: WaitQueue, until ready: (inout State) -> Bool) async {
        if state.withLock({ ready(&$0) }) { return }
        var watch: Watchdog.Watch?
        // Cancellation and the limit must release this waiter whether they come before or after it is queued:
        // the check and the queueing happen under the lock that the release takes, and the limit is watched
        // only once the waiter is queued.
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let id = state.withLock { state -> UInt64? in
                    if Task.isCancelled || ready(&state) { return nil }
                    state.lastWaiterID += 1
                    state.append(Waiter(id: state.lastWaiterID, continuation: continuation), to: queue)
                    return state.lastWaiterID
                }
                guard let id else { return continuation.resume() }
                watch = Watchdog.shared.watch(for: limit) { [weak self] in self?.release(queue, only: id) }
            }
        } onCancel: {
            release(queue)
        }
        if let watch { Watchdog.shared.end(watch) }
    }

    /// Resumes the waiters of `queue`, or only the one with `id`.
    private func release(_ queue: WaitQueue, only id: UInt64? = nil) {
        for waiter in state.withLock({ $0.take(from: queue, only: id) }) { waiter.continuation.resume() }
    }

    /// A listener has taken everything delivered to it or ended: wakes the runner when all have.
    func listenerBecameIdle() {
        let waiters = state.withLock { state -> [Waiter] in
            guard !state.settleWaiters.isEmpty, state.allListenersIdle() else { return [] }
            defer { state.settleWaiters = [] }
            return state.settleWaiters
        }
        for waiter in waiters { waiter.continuation.resume() }
    }

    /// The app quit: its listeners end (their `for await` loops finish), and updates wait for the next launch.
    public func endLaunch() {
        let listeners = state.withLock { state in
            defer {
                state.listeners = []
                state.idlePrefix = 0
                state.listenedThisLaunch = false
                state.killed = false
                state.killOnFinish = nil
                state.killPoint = nil
                state.launch += 1
            }
            return state.listeners
        }
        for listener in listeners { listener.end() }
        store.withDevice(deviceName, account: account) { _, updates in updates.deliveredAtStart = [] }
        listenerBecameIdle()
    }

    /// The app was deleted: updates that waited for the device are dropped; its unfinished transactions still
    /// arrive when a new install's listener starts.
    public func discardPendingUpdates() {
        store.withDevice(deviceName, account: account) { store, updates in
            updates.cursor = store.updateLog.count
            updates.deliveredAtStart = []
        }
    }
}

/// A continuation resumed once, with the first of the values it is given, whether that comes before or after the
/// continuation is installed.
final class FirstOf: Sendable {
    private let state = Locked<(waiting: CheckedContinuation<Bool, Never>?, first: Bool?)>((nil, nil))

    func install(_ continuation: CheckedContinuation<Bool, Never>) {
        let ready = state.withLock { state -> Bool? in
            guard let first = state.first else {
                state.waiting = continuation
                return nil
            }
            return first
        }
        if let ready { continuation.resume(returning: ready) }
    }

    func resume(_ value: Bool) {
        let waiting = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard state.first == nil else { return nil }
            state.first = value
            return state.waiting.take()
        }
        waiting?.resume(returning: value)
    }
}

/// A session held weakly, for the registry of open sessions.
private struct WeakSession: Sendable {
    weak var session: StoreKitSession?
    init(_ session: StoreKitSession) { self.session = session }
}

/// What `Product.purchase(options:)` answered, for the runner's evidence.
public struct PurchaseRecord: Sendable, Hashable {
    /// The product the app asked to buy.
    public var productID: String
    /// `success`, `userCancelled`, `pending` or `failed`.
    public var result: String
    /// The transaction, on success.
    public var transactionId: String?
    /// The error, when the purchase threw.
    public var message: String?
}

/// A failure the next StoreKit call of a kind meets, as StoreKitTest's `SKTestSession.setSimulatedError(_:forAPI:)`
/// sets one up for a `FailableStoreKitAPI` (load products, purchase, App Store sync, verification).
/// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/setsimulatederror(_:forapi:)
public enum StoreKitFailure: Sendable, Hashable {
    /// The call throws this StoreKit error.
    case storeKit(StoreKitError.Name)
    /// The purchase throws this `Product.PurchaseError`.
    case purchase(Product.PurchaseError)
    /// Transactions handed out are `.unverified` with this error.
    case verification(VerificationResult<Transaction>.VerificationError)

    /// The failure a matrix step's `failNext` names, or `nil` when the error is not one the call can fail with
    /// (``StoreKitCall/errorNames``).
    public init?(_ failNext: FailNext) {
        switch failNext.call {
        case .products, .sync, .purchase:
            if let name = StoreKitError.Name(rawValue: failNext.error) {
                self = .storeKit(name)
            } else if failNext.call == .purchase, let error = Product.PurchaseError.allCases.first(where: { $0.name == failNext.error }) {
                self = .purchase(error)
            } else {
                return nil
            }
        case .verification:
            guard let error = VerificationResult<Transaction>.VerificationError.allCases.first(where: { "\($0)" == failNext.error }) else {
                return nil
            }
            self = .verification(error)
        }
    }

    var error: any Error {
        switch self {
        case .storeKit(let name): name.error
        case .purchase(let error): error
        case .verification(let error): error
        }
    }
}

extension StoreKitSession {
    /// A runner's wait on a session, resumed once.
    struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Void, Never>
    }
}

extension StoreKitSession.State {
    mutating func append(_ waiter: StoreKitSession.Waiter, to queue: StoreKitSession.WaitQueue) {
        switch queue {
        case .settle: settleWaiters.append(waiter)
        case .listener: listenerWaiters.append(waiter)
        }
    }

    /// Removes and returns the waiters of `queue`, or only the one with `id`; call under the lock.
    mutating func take(from queue: StoreKitSession.WaitQueue, only id: UInt64?) -> [StoreKitSession.Waiter] {
        var waiters: [StoreKitSession.Waiter]
        switch queue {
        case .settle: waiters = settleWaiters
        case .listener: waiters = listenerWaiters
        }
        var taken = waiters
        if let id {
            taken = waiters.filter { $0.id == id }
            waiters.removeAll { $0.id == id }
        } else {
            waiters = []
        }
        switch queue {
        case .settle: settleWaiters = waiters
        case .listener: listenerWaiters = waiters
        }
        return taken
    }


    /// Whether every listener has taken what was delivered to it and finished with it; call under the lock.
    mutating func allListenersIdle() -> Bool {
        while idlePrefix < listeners.count, listeners[idlePrefix].isIdle { idlePrefix += 1 }
        return idlePrefix == listeners.count
    }
}
