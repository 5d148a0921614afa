import AppHarness
import Foundation
import NotesStore
import StoreKit
import Testing

/// The Notes app installed on one device, as the harness drives it: a few lines around `NotesStore`.
@MainActor
final class NotesApp: AppUnderTest {
    /// What the app keeps on disk survives a relaunch (this object); a reinstall is a new object.
    var ledger: NotesStore.Ledger?
    var store: NotesStore?

    nonisolated init() {}

    func launch() async throws {
        let ledger = self.ledger ?? NotesStore.Ledger()
        self.ledger = ledger
        let store = NotesStore(ledger: ledger)
        store.start()
        self.store = store
        await TransactionUpdates.waitForListener()  // the listener is a task start() begins
        await store.refresh()
    }

    func quit() async {
        store?.stop()
        store = nil
    }

    func purchase(_ request: AppPurchaseRequest) async throws -> AppPurchaseReport? {
        guard let store, let product = try await Product.products(for: [request.productID]).first else { return nil }
        _ = try await store.buy(product, options: request.options(for: product))
        return nil  // the harness records what purchase(options:) answered
    }

    func restore() async throws -> AppRestoreReport? {
        try await store?.restore()
        return nil
    }

    func entitledProductIDs() async -> Set<String> {
        await store?.refresh()
        return store?.entitledProductIDs ?? []
    }

    func balances() async -> [String: Int] {
        ["credits": ledger?.credits ?? 0]
    }
}

/// The matrix beside the app, found from this file so that `swift test` works from any directory.
let releaseMatrix = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().appendingPathComponent("../../../matrices/release.json").standardizedFileURL.path

@Test("The release matrix passes on the app's own Store code")
func releaseMatrixPasses() async throws {
    try await AppHarness.expectPasses(matrix: releaseMatrix) { NotesApp() }
}
