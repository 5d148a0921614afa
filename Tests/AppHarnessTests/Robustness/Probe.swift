// Shared pieces of the app harness robustness tests: matrices over the example catalog, gates, and a time limit
// that does not need the harness to cooperate.
import AppHarness
import Foundation
import SimulatedStoreKit
import TestSupport
import Threading

enum Probe {
    static let catalog = Fixtures.packageDirectory.appendingPathComponent("matrices/Products.storekit").path
    static let pro = "com.example.storekitmatrix.pro"
    static let plus = "com.example.storekitmatrix.plus.monthly"
    static let premium = "com.example.storekitmatrix.premium.yearly"
    static let coins = "com.example.storekitmatrix.coins100"

    static let tiers = """
        {"pro": ["\(pro)"], "plus": ["\(plus)"], "premium": ["\(premium)"]}
        """

    /// Writes a matrix over the example catalog whose `cases` is the JSON array given, and returns its path.
    static func matrix(_ cases: String, accounts: String = #"{"a": {}, "b": {}}"#, tiers: String = Probe.tiers) throws -> String {
        let json = """
            {"schemaVersion": 1, "name": "probe", "app": {"bundleId": "com.example.storekitmatrix"},
             "catalog": "\(catalog)",
             "tiers": \(tiers),
             "consumables": {"\(coins)": {"balance": "coins", "amount": 100}},
             "accounts": \(accounts),
             "cases": \(cases)}
            """
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("probe-\(UUID().uuidString).json")
        try Data(json.utf8).write(to: url)
        return url.path
    }

    /// How long a run that should end is given before it counts as hung: five minutes, far beyond any run these
    /// tests make (a second or two), so that only a run that never ends fails, not one slowed by a busy machine.
    static let hangLimit: Duration = .seconds(300)

    /// Runs `body`; `nil` when it has not returned within `limit` (it keeps running).
    static func within<T: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async throws -> T) async -> Result<T, any Error>? {
        let waiting = Once<Result<T, any Error>?>()
        return await withCheckedContinuation { continuation in
            waiting.install(continuation)
            Task {
                let result: Result<T, any Error>
                do { result = .success(try await body()) } catch { result = .failure(error) }
                waiting.resume(result)
            }
            Task {
                try? await Task.sleep(for: limit)
                waiting.resume(nil)
            }
        }
    }
}

/// A continuation resumed once, by whichever comes first.
final class Once<Value: Sendable>: Sendable {
    private let waiting = Locked<CheckedContinuation<Value, Never>?>(nil)
    func install(_ continuation: CheckedContinuation<Value, Never>) { waiting.withLock { $0 = continuation } }
    func resume(_ value: Value) { waiting.withLock { $0.take() }?.resume(returning: value) }
}

/// A one-way gate: `wait()` returns once `open()` was called.
final class Gate: Sendable {
    private let state = Locked<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Waits at most `limit`; true when the gate opened.
    func wait(upTo limit: Duration) async -> Bool {
        await Probe.within(limit) { await self.wait() } != nil
    }

    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    var isOpen: Bool { state.withLock { $0.open } }
}

/// A thread-safe bag of notes the apps leave for the test.
final class Notes: Sendable {
    private let lines = Locked<[String]>([])
    func add(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

/// What a probe app keeps between calls: its listener, the consumables it credited, its coins.
final class ProbeState: Sendable {
    let listener = Locked<Task<Void, Never>?>(nil)
    let credited = Locked<Set<UInt64>>([])
    let coins = Locked(0)
}

/// An app that does what the docs show: a `Task {}` listener that finishes what it gets, entitlements from
/// `Transaction.currentEntitlements`, coins credited once per transaction. A test's app implements the calls it
/// changes and reaches the plain behaviour through the `plain…` methods.
protocol ProbeApp: AppUnderTest {
    var probe: ProbeState { get }
    /// What the listener does with each update.
    func handle(_ update: VerificationResult<Transaction>) async
    /// Credits a consumable's coins.
    func credit(_ transaction: Transaction)
}

extension ProbeApp {
    func handle(_ update: VerificationResult<Transaction>) async { await plainHandle(update) }
    func credit(_ transaction: Transaction) { plainCredit(transaction) }
    func launch() async throws { try await plainLaunch() }
    func quit() async { await plainQuit() }
    func purchase(_ request: AppPurchaseRequest) async throws -> AppPurchaseReport? { try await plainPurchase(request) }
    func restore() async throws -> AppRestoreReport? { try await plainRestore() }
    func entitledProductIDs() async -> Set<String> { await plainEntitledProductIDs() }
    func balances() async -> [String: Int] { await plainBalances() }

    func plainHandle(_ update: VerificationResult<Transaction>) async {
        guard case .verified(let transaction) = update else { return }
        credit(transaction)
        await transaction.finish()
    }

    func plainCredit(_ transaction: Transaction) {
        guard transaction.productType == .consumable, probe.credited.withLock({ $0.insert(transaction.id).inserted }) else { return }
        probe.coins.withLock { $0 += 100 * transaction.purchasedQuantity }
    }

    func plainLaunch() async throws {
        let task = Task { [self] in
            for await update in Transaction.updates { await handle(update) }
        }
        probe.listener.withLock { $0 = task }
        _ = await StoreKitSession.waitForListener()
    }

    func plainQuit() async { probe.listener.withLock { $0 }?.cancel() }

    func plainPurchase(_ request: AppPurchaseRequest) async throws -> AppPurchaseReport? {
        guard let product = try await Product.products(for: [request.productID]).first else { return nil }
        if case .success(.verified(let transaction)) = try await product.purchase(options: request.options(for: product)) {
            credit(transaction)
            await transaction.finish()
        }
        return nil
    }

    func plainRestore() async throws -> AppRestoreReport? {
        try await AppStore.sync()
        return nil
    }

    func plainEntitledProductIDs() async -> Set<String> {
        var ids: Set<String> = []
        for await case .verified(let transaction) in Transaction.currentEntitlements where transaction.revocationDate == nil {
            ids.insert(transaction.productID)
        }
        return ids
    }

    func plainBalances() async -> [String: Int] { ["coins": probe.coins.withLock { $0 }] }
}

/// The plain probe app, unchanged.
final class PlainProbeApp: ProbeApp {
    let probe = ProbeState()
}
