import Foundation
import StoreSimulator
import Threading

/// One case's simulated App Store, shared by the runner (which plays the App Store: renewals, refunds, Ask to Buy
/// answers, time) and the app under test (which reaches it through StoreKit's API, on its own tasks).
///
/// Every access holds the store's lock, so the app's tasks and the runner never touch the store at once; nothing
/// waits inside the lock. Each case has a store of its own: cases in parallel share nothing.
public final class SimulatedStore: Sendable {
    private let state: Locked<State>
    /// Signs the data StoreKit hands the app (`jwsRepresentation`), when it is asked for.
    let signer: (any PayloadSigner)?

    struct State: ~Copyable {
        var store: AppStoreSimulator
        /// What each device has received of `Transaction.updates`, by device name.
        var devices: [String: DeviceUpdates] = [:]
        /// The `Product` values handed out, by product identifier, with the price each was made at.
        var products: [String: (price: String, product: Product)] = [:]
    }

    /// - Parameters:
    ///   - store: the case's store, with its accounts prepared; from now on reached only through this object.
    ///   - signer: signs transactions and renewal info for `jwsRepresentation`; `nil` hands out unsigned data.
    public init(_ store: sending AppStoreSimulator, signer: (any PayloadSigner)?) {
        state = Locked(State(store: store))
        self.signer = signer
    }

    /// Runs `body` with the store, under its lock. `body` must not wait for anything.
    public func withStore<Result: ~Copyable, Failure: Error>(
        _ body: (AppStoreSimulator) throws(Failure) -> sending Result) throws(Failure) -> sending Result {
        try state.withLock { state throws(Failure) -> sending Result in try body(state.store) }
    }

    /// Runs `body` with the store and the update state of `device`, under the lock.
    func withDevice<Result>(_ device: String, account: String,
                            _ body: (AppStoreSimulator, inout DeviceUpdates) throws -> sending Result) rethrows -> sending Result {
        try state.withLock { state in
            var updates = state.devices[device] ?? DeviceUpdates(cursor: state.store.updateLog.count)
            defer { state.devices[device] = updates }
            return try body(state.store, &updates)
        }
    }

    /// Runs `body` with the store and the `Product` values made so far (``Product/products(for:)``), under the lock.
    func withProducts<Result>(_ body: (AppStoreSimulator, inout [String: (price: String, product: Product)]) throws -> sending Result)
        rethrows -> sending Result {
        try state.withLock { state in try body(state.store, &state.products) }
    }

    /// Makes `device` a new device of the case: what happened before it exists is not delivered to it through
    /// `Transaction.updates` (its unfinished transactions still are, when its app's listener starts).
    public func addDevice(_ device: String) {
        state.withLock { state in
            state.devices[device] = DeviceUpdates(cursor: state.store.updateLog.count)
        }
    }
}

/// What one device has received of `Transaction.updates`: the first entry of the store's update log it has not
/// received, and the transactions its current listeners received when they started (not delivered twice).
struct DeviceUpdates: Sendable {
    var cursor: Int
    var deliveredAtStart: Set<String> = []
}
