import Foundation
@_exported import HarnessCore
import MatrixModel

extension AppUnderTest {
    /// No purchase report: the runner records what `Product.purchase(options:)` answered.
    public func purchase(_ request: AppPurchaseRequest) async throws -> AppPurchaseReport? {
        try await purchaseProduct(request)
        return nil
    }

    /// Buys `request`'s product with `Product.products(for:)` and `purchase(options:)`: the default for apps that
    /// implement only the other methods.
    private func purchaseProduct(_ request: AppPurchaseRequest) async throws {
        guard let product = try await Product.products(for: [request.productID]).first else {
            throw AppHarnessError("the store has no product \(request.productID)")
        }
        _ = try await product.purchase(options: request.options(for: product))
    }
}

extension AppPurchaseRequest {
    /// The purchase options that ask for what the request names, with StoreKit's own options: `quantity`,
    /// `appAccountToken`, and for an offer of `product` `winBackOffer(_:)` or `promotionalOffer(offerID:keyID:nonce:signature:timestamp:)`
    /// (the simulated store checks the offer, not the signature an app's server would make). No option asks for
    /// the introductory offer: it applies by itself to an eligible customer.
    /// Apple: https://developer.apple.com/documentation/storekit/product/purchaseoption,
    /// https://developer.apple.com/documentation/storekit/product/subscriptionoffer
    public func options(for product: Product) -> Set<Product.PurchaseOption> {
        var options: Set<Product.PurchaseOption> = []
        if quantity != 1 { options.insert(.quantity(quantity)) }
        if let token = appAccountToken.flatMap(UUID.init(uuidString:)) { options.insert(.appAccountToken(token)) }
        if let offer, let subscription = product.subscription {
            if let winBack = subscription.winBackOffers.first(where: { $0.id == offer }) {
                options.insert(.winBackOffer(winBack))
            } else if subscription.promotionalOffers.contains(where: { $0.id == offer }) {
                options.insert(.promotionalOffer(offerID: offer, keyID: "SIMULATED", nonce: UUID(), signature: Data(), timestamp: 0))
            }
        }
        return options
    }
}
