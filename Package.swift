// swift-tools-version: 6.0
import PackageDescription

// Layering (each target depends only on those above it):
//   MatrixCore (pure) → StoreSimulator → COpenSSL/SignedData → Adapters, AppStoreAPI → Reporters → MatrixCLI → matrix
//   DriverKit (the driver protocol's messages and server loop) depends on MatrixCore only.
let package = Package(
    name: "StoreKitMatrix",
    products: [
        .executable(name: "matrix", targets: ["matrix"]),
        .library(name: "MatrixCore", targets: ["MatrixCore"]),
        .library(name: "DriverKit", targets: ["DriverKit"]),
    ],
    targets: [
        .target(name: "MatrixCore"),
        .target(name: "StoreSimulator", dependencies: ["MatrixCore"]),
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        .target(name: "SignedData", dependencies: ["COpenSSL", "MatrixCore"]),
        .target(name: "AppStoreAPI", dependencies: ["MatrixCore", "SignedData"]),
        .target(name: "DriverKit", dependencies: ["MatrixCore"]),
        .target(name: "Adapters", dependencies: ["MatrixCore", "StoreSimulator", "SignedData", "AppStoreAPI", "DriverKit"]),
        .target(name: "Reporters", dependencies: ["MatrixCore", "COpenSSL"]),
        .target(name: "MatrixCLI", dependencies: ["MatrixCore", "StoreSimulator", "SignedData", "DriverKit", "Adapters", "AppStoreAPI", "Reporters"]),
        .executableTarget(name: "matrix", dependencies: ["MatrixCLI"]),
        .target(name: "TestSupport", dependencies: ["MatrixCore"]),

        .testTarget(name: "MatrixCoreTests", dependencies: ["MatrixCore", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "StoreSimulatorTests", dependencies: ["StoreSimulator", "TestSupport"]),
        .testTarget(name: "SignedDataTests", dependencies: ["SignedData", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "DriverKitTests", dependencies: ["DriverKit", "TestSupport"]),
        .testTarget(name: "AdaptersTests", dependencies: ["Adapters", "DriverKit", "TestSupport"], exclude: ["Drivers"]),
        .testTarget(name: "AppStoreAPITests", dependencies: ["Adapters", "AppStoreAPI", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "ReportersTests", dependencies: ["Reporters", "TestSupport"], exclude: ["Golden"]),
        .testTarget(name: "MatrixCLITests", dependencies: ["MatrixCLI", "AppStoreAPI", "TestSupport"], exclude: ["SchemaSamples"]),
    ],
    swiftLanguageModes: [.v6]
)
