import Foundation
@_exported import HarnessCore
import MatrixModel

extension AppUnderTest {
    /// No purchase report: the runner records what `Product.purchase(options:)` answered.
    public func purchase(_ request: AppPurchaseRequest) async throws -> AppPurchaseReport? {
        try await purchaseProduct(request)
        return nil
    }

    /// An app without consumables keeps no balances. (The harness notes that the app relies on this default, so
    /// that a step expecting a balance says so instead of reporting 0.)
    public func balances() async -> [String: Int] {
        StoreKitSession.current?.noteDefaultBalances()
        return [:]
    }

    /// Buys `request`'s product with `Product.products(for:)` and `purchase(options:)`: the default for apps that
    /// implement only the other methods.
    private func purchaseProduct(_ request: AppPurchaseRequest) async throws {
        guard let product = try await Product.products(for: [request.productID]).first else {
            throw AppHarnessError("the store has no product \(request.productID)")
        }
        _ = try await product.purchase(options: request.options)
    }
}

extension AppPurchaseRequest {
    /// The purchase options that ask for what the request names: quantity, app account token and offer.
    public var options: Set<Product.PurchaseOption> {
        var options: Set<Product.PurchaseOption> = []
        if quantity != 1 { options.insert(.quantity(quantity)) }
        if let token = appAccountToken.flatMap(UUID.init(uuidString:)) { options.insert(.appAccountToken(token)) }
        if let offer { options.insert(.custom(key: Product.PurchaseOption.matrixOfferKey, value: offer)) }
        return options
    }
}

