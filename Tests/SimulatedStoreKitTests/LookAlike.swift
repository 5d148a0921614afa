import Foundation
import MatrixModel
import SignedData
import SimulatedStoreKit
import StoreSimulator
import TestSupport

/// A simulated App Store over the example catalog, and StoreKit on its devices: what the tests call StoreKit's
/// API through, and play the App Store's side on.
struct LookAlike {
    /// Signs with the simulator PKI.
    struct Signer: PayloadSigner {
        func sign(_ payload: Data) throws -> String { try SimulatorPKI.default.sign(payload: payload) }
    }

    let store: SimulatedStore

    init(accounts: [Account] = [Account(alias: "a")], settings: StoreSettings = .init(), signed: Bool = false) throws {
        let matrixCase = MatrixCase(id: "c", kind: "fresh-purchase", account: accounts[0].alias, steps: [])
        let matrix = ExampleMatrix.matrix(accounts: accounts, cases: [matrixCase], store: settings)
        let simulator = AppStoreSimulator(catalog: matrix.catalog, configuration: StoreConfiguration(matrix: matrix, case: matrixCase))
        try simulator.prepare(accounts)
        store = SimulatedStore(simulator, signer: signed ? Signer() : nil)
    }

    /// StoreKit on a device of `account`.
    func device(_ name: String = "iPhone", account: String = "a") -> StoreKitSession {
        StoreKitSession(store: store, deviceName: "\(account)/\(name)", account: account)
    }

    /// Plays the App Store's side.
    func appStore<Result: Sendable>(_ body: (AppStoreSimulator) throws -> Result) rethrows -> Result {
        try store.withStore { simulator in try body(simulator) }
    }
}

extension StoreKitSession {
    /// Buys `productID` on this device and returns the result.
    func buy(_ productID: String, options: Set<Product.PurchaseOption> = []) async throws -> Product.PurchaseResult {
        try await run {
            guard let product = try await Product.products(for: [productID]).first else { throw LookAlikeError.noProduct(productID) }
            return try await product.purchase(options: options)
        }
    }

    /// The verified transaction a successful purchase returned.
    func bought(_ productID: String, options: Set<Product.PurchaseOption> = []) async throws -> Transaction {
        guard case .success(.verified(let transaction)) = try await buy(productID, options: options) else {
            throw LookAlikeError.notBought(productID)
        }
        return transaction
    }

    /// The product IDs of a transaction sequence, in order.
    func productIDs(_ sequence: @escaping () -> Transaction.Transactions) async -> [String] {
        await run {
            var ids: [String] = []
            for await result in sequence() { ids.append(result.unsafePayloadValue.productID) }
            return ids
        }
    }
}

enum LookAlikeError: Error {
    case noProduct(String)
    case notBought(String)
}
