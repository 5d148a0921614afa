// swift-tools-version: 6.0
// The app's Store code under test: the same files the app builds with Apple's StoreKit (App/Sources/NotesStore,
// linked here as Sources/NotesStore), built against StoreKit Matrix's look-alike, whose module is also named
// StoreKit. A package of its own, so that the look-alike never shares a build with the app: run it with
// `swift test --package-path StoreTests` on Linux or a Mac, no flags.
import PackageDescription

let package = Package(
    name: "StoreTests",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [
        // Where you get StoreKit Matrix from, at the version your CI pins (examples/ci/storekit-matrix.yml).
        .package(url: "https://github.com/your-org/storekit-matrix.git", from: "0.2.0"),
    ],
    targets: [
        .target(name: "NotesStore", dependencies: [.product(name: "StoreKitLookAlike", package: "storekit-matrix")]),
        .testTarget(name: "NotesStoreTests", dependencies: [
            "NotesStore",
            .product(name: "AppHarness", package: "storekit-matrix"),
            .product(name: "StoreKitLookAlike", package: "storekit-matrix"),
        ]),
    ]
)
