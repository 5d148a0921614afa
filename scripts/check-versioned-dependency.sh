#!/usr/bin/env bash
# Builds a team's package that adds StoreKit Matrix the way Swift teams add a dependency, by version:
# `.package(url:from:)` on a tagged clone of this repository's committed HEAD. SwiftPM refuses a versioned
# dependency whose targets carry unsafe flags, so this fails when one comes back. The consumer uses every library
# product, and its test runs a small matrix of its own (its own catalog, its own Store) through AppHarness. (The
# example app repository, examples/app-repo, depends on it the same way: scripts/run-ci-example.sh runs it.)
#
# Usage: scripts/check-versioned-dependency.sh [WORK_DIR]
#   WORK_DIR  where the clone and the consumer go (a new temporary folder by default, removed afterwards)
# Exit status: 0 the consumer built and its test passed; non-zero otherwise, with SwiftPM's output.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [[ $# -gt 0 ]]; then
    work="$1"
    mkdir -p "$work"
else
    work="$(mktemp -d)"
    trap 'rm -rf "$work"' EXIT
fi
version="$(sed -n 's/.*public static let current = "\(.*\)".*/\1/p' "$root/Sources/MatrixModel/Model/ToolVersion.swift")"
[[ -n "$version" ]] || { echo "error: cannot read ToolVersion.current" >&2; exit 1; }

echo "== a clone of HEAD tagged $version"
rm -rf "$work/storekit-matrix" "$work/consumer"
git clone --quiet "$root" "$work/storekit-matrix"
git -C "$work/storekit-matrix" tag "$version"

echo "== a consumer package that depends on it by version"
consumer="$work/consumer"
mkdir -p "$consumer/Sources/ShopStore" "$consumer/Sources/ShopHarness" "$consumer/Sources/shop-driver" \
         "$consumer/Sources/ShopXcode" "$consumer/Tests/ShopStoreTests"
cat > "$consumer/Package.swift" <<EOF
// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Shop",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [.package(url: "file://$work/storekit-matrix", from: "$version")],
    targets: [
        .target(name: "ShopStore", dependencies: [.product(name: "SimulatedStoreKit", package: "storekit-matrix")]),
        .target(name: "ShopHarness", dependencies: [
            "ShopStore",
            .product(name: "AppHarness", package: "storekit-matrix"),
            .product(name: "SimulatedStoreKit", package: "storekit-matrix"),
        ]),
        .executableTarget(name: "shop-driver", dependencies: [
            "ShopHarness",
            .product(name: "AppHarness", package: "storekit-matrix"),
            .product(name: "AppHarnessDriver", package: "storekit-matrix"),
            .product(name: "DriverKit", package: "storekit-matrix"),
        ]),
        .target(name: "ShopXcode", dependencies: [
            .product(name: "XcodeHarness", package: "storekit-matrix"),
            .product(name: "MatrixModel", package: "storekit-matrix"),
        ]),
        .testTarget(name: "ShopStoreTests", dependencies: [
            "ShopHarness",
            .product(name: "AppHarness", package: "storekit-matrix"),
        ], exclude: ["Products.storekit", "shop.json"]),
    ]
)
EOF
cat > "$consumer/Sources/ShopStore/Shop.swift" <<'EOF'
import Foundation
import SimulatedStoreKit

/// The shop's purchases: one lifetime unlock.
@MainActor
public final class Shop {
    public private(set) var unlocked = false
    private var updates: Task<Void, Never>?

    public init() {}

    public func start() {
        updates = Task { [weak self] in
            for await case .verified(let transaction) in Transaction.updates {
                await transaction.finish()
                await self?.refresh()
            }
        }
    }

    public func stop() { updates?.cancel() }

    public func refresh() async {
        var unlocked = false
        for await case .verified(let transaction) in Transaction.currentEntitlements where transaction.revocationDate == nil {
            if transaction.productID == "com.example.shop.unlock" { unlocked = true }
        }
        self.unlocked = unlocked
    }
}
EOF
cat > "$consumer/Sources/ShopHarness/ShopApp.swift" <<'EOF'
import AppHarness
import ShopStore
import SimulatedStoreKit

/// The shop on one device, as the harness drives it: shared by the driver and the tests.
@MainActor
public final class ShopApp: AppUnderTest {
    var shop: Shop?
    public nonisolated init() {}
    public func launch() async throws {
        shop = Shop()
        shop?.start()
        await TransactionUpdates.waitForListener()
        await shop?.refresh()
    }
    public func quit() async { shop?.stop(); shop = nil }
    public func purchase(_ request: AppPurchaseRequest) async throws -> AppPurchaseReport? {
        guard let product = try await Product.products(for: [request.productID]).first else { return nil }
        if case .success(.verified(let transaction)) = try await product.purchase(options: request.options(for: product)) {
            await transaction.finish()
        }
        await shop?.refresh()
        return nil
    }
    public func restore() async throws -> AppRestoreReport? {
        try await AppStore.sync()
        await shop?.refresh()
        return nil
    }
    public func entitledProductIDs() async -> Set<String> { shop?.unlocked == true ? ["com.example.shop.unlock"] : [] }
}
EOF
cat > "$consumer/Sources/shop-driver/main.swift" <<'EOF'
import AppHarness
import AppHarnessDriver
import DriverKit
import Foundation
import ShopHarness

_ = DriverError.self
exit(await AppHarness.serveDriver { ShopApp() })
EOF
cat > "$consumer/Sources/ShopXcode/ShopXcode.swift" <<'EOF'
import MatrixModel
import XcodeHarness

/// Only that the Xcode harness and the model link for this platform.
public typealias ShopStoreKitClient = any StoreKitClient
public let shopToolVersion = ToolVersion.current
EOF
cat > "$consumer/Tests/ShopStoreTests/Products.storekit" <<'EOF'
{
  "identifier" : "8C1F2A10",
  "nonRenewingSubscriptions" : [],
  "products" : [
    {
      "displayPrice" : "9.99",
      "familyShareable" : false,
      "internalID" : "6740000001",
      "localizations" : [ { "description" : "Everything, forever", "displayName" : "Unlock", "locale" : "en_US" } ],
      "productID" : "com.example.shop.unlock",
      "referenceName" : "Unlock",
      "type" : "NonConsumable"
    }
  ],
  "settings" : { "_failTransactionsEnabled" : false, "_storefront" : "USA" },
  "subscriptionGroups" : [],
  "version" : { "major" : 4, "minor" : 0 }
}
EOF
cat > "$consumer/Tests/ShopStoreTests/shop.json" <<'EOF'
{
  "schemaVersion": 1,
  "name": "shop",
  "app": { "bundleId": "com.example.shop" },
  "catalog": "Products.storekit",
  "tiers": { "full": ["com.example.shop.unlock"] },
  "accounts": { "fresh": { "description": "new account" }, "owner": { "owns": ["com.example.shop.unlock"] } },
  "cases": [
    { "id": "fresh-purchase/unlock", "kind": "fresh-purchase", "account": "fresh",
      "steps": [
        { "action": "launch", "expect": { "access": [] } },
        { "action": "purchase", "product": "com.example.shop.unlock", "expect": { "result": "success", "access": ["full"] } },
        { "action": "relaunch", "expect": { "access": ["full"] } } ] },
    { "id": "restore/unlock", "kind": "restore", "account": "owner",
      "steps": [
        { "action": "reinstall", "expect": { "access": ["full"] } },
        { "action": "restore", "expect": { "result": "restored", "access": ["full"] } } ] },
    { "id": "refund/unlock", "kind": "refund", "account": "owner",
      "steps": [
        { "action": "launch", "expect": { "access": ["full"] } },
        { "action": "refund", "product": "com.example.shop.unlock", "expect": { "access": [] } } ] }
  ]
}
EOF
cat > "$consumer/Tests/ShopStoreTests/ShopMatrixTests.swift" <<'EOF'
import AppHarness
import Foundation
import ShopHarness
import Testing

@Test func shopMatrix() async throws {
    let matrix = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("shop.json").path
    let result = try await AppHarness.expectPasses(matrix: matrix, options: .init(reportsDirectory: nil)) { ShopApp() }
    #expect(result.passed && result.summary.steps[.pass] == 7)
}
EOF

echo "== resolve, build every product, run the consumer's test"
(cd "$consumer" && swift package resolve && swift build --build-tests && swift test --skip-build)
