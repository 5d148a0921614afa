// swift-tools-version: 6.0
import PackageDescription

// The target graph (docs/architecture.md): each target has one job and depends only on targets above it.
// `scripts/check-imports.py` fails CI when a target imports a module it does not declare here, or declares one
// it never imports.
//
//   MatrixJSON                        positioned JSON reader, JSON values, writers
//   AppStoreModels    → MatrixJSON    App Store payloads (transactions, renewal info, notifications)
//   MatrixModel       → MatrixJSON, AppStoreModels
//                                     matrix, catalog, diagnostics, loading, environments and their facts,
//                                     evidence records and run manifests, judging
//   MatrixEngine      → MatrixModel   runner, adapter protocols, shards
//   StoreSimulator    → MatrixModel, AppStoreModels
//                                     the App Store on a virtual clock
//   ReferenceApp      → MatrixModel, StoreSimulator
//                                     the app that follows Apple's guidance, and its known faults
//   COpenSSL
//   SignedData        → COpenSSL, MatrixJSON
//                                     ES256 JWS, X.509 chains, the simulator PKI (libcrypto)
//   DriverKit         → MatrixModel, MatrixJSON
//                                     the driver protocol, for drivers written in Swift
//   LocalEnvironment  → MatrixEngine, StoreSimulator, ReferenceApp, SignedData, DriverKit
//   ExecEnvironment   → MatrixEngine, DriverKit
//   MatrixPlanning    → MatrixModel, LocalEnvironment
//   AppStoreAPI       → MatrixModel, AppStoreModels, SignedData
//   GuidedEnvironment → MatrixEngine, MatrixPlanning, AppStoreAPI
//   MatrixAuthoring   → MatrixModel   `matrix init`
//   MatrixComparison  → MatrixModel   `matrix compare`
//   Reporters         → MatrixModel, MatrixComparison
//                                     JUnit, Markdown, HTML and JSON reports, rendering only
//   EvidenceStore     → MatrixEngine, Reporters, SignedData, COpenSSL, AppStoreModels
//                                     run directories, evidence writer and reader, archives, verification, merge
//   MatrixCLI         → everything above; `matrix` is its tiny executable
let package = Package(
    name: "StoreKitMatrix",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .executable(name: "matrix", targets: ["matrix"]),
        .library(name: "MatrixModel", targets: ["MatrixModel"]),
        .library(name: "DriverKit", targets: ["DriverKit"]),
    ],
    targets: [
        .target(name: "MatrixJSON"),
        .target(name: "AppStoreModels", dependencies: ["MatrixJSON"]),
        .target(name: "MatrixModel", dependencies: ["MatrixJSON", "AppStoreModels"]),
        .target(name: "MatrixEngine", dependencies: ["MatrixJSON", "MatrixModel"]),
        .target(name: "StoreSimulator", dependencies: ["MatrixJSON", "AppStoreModels", "MatrixModel"]),
        .target(name: "ReferenceApp", dependencies: ["MatrixModel", "StoreSimulator"]),
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        .target(name: "SignedData", dependencies: ["COpenSSL", "MatrixJSON"]),
        .target(name: "DriverKit", dependencies: ["MatrixModel", "MatrixJSON"]),
        .target(name: "FileIO"),
        .target(name: "LocalEnvironment",
                dependencies: ["MatrixModel", "MatrixEngine", "StoreSimulator", "ReferenceApp", "SignedData", "AppStoreModels", "DriverKit"]),
        .target(name: "ExecEnvironment", dependencies: ["MatrixModel", "MatrixEngine", "DriverKit"]),
        .target(name: "MatrixPlanning", dependencies: ["MatrixModel", "MatrixEngine", "LocalEnvironment"]),
        .target(name: "AppStoreAPI", dependencies: ["MatrixJSON", "MatrixModel", "AppStoreModels", "SignedData"]),
        .target(name: "GuidedEnvironment",
                dependencies: ["MatrixJSON", "MatrixModel", "MatrixEngine", "MatrixPlanning", "AppStoreAPI", "AppStoreModels"]),
        .target(name: "MatrixAuthoring", dependencies: ["MatrixModel", "MatrixJSON"]),
        .target(name: "MatrixComparison", dependencies: ["MatrixModel"]),
        .target(name: "Reporters", dependencies: ["MatrixJSON", "MatrixModel", "MatrixComparison", "FileIO"]),
        .target(name: "EvidenceStore",
                dependencies: ["MatrixJSON", "AppStoreModels", "MatrixModel", "MatrixEngine", "FileIO", "Reporters", "SignedData", "COpenSSL"]),
        .target(name: "MatrixCLI", dependencies: [
            "MatrixJSON", "MatrixModel", "MatrixEngine", "StoreSimulator", "ReferenceApp", "SignedData", "DriverKit",
            "LocalEnvironment", "ExecEnvironment", "GuidedEnvironment", "MatrixPlanning", "AppStoreAPI",
            "MatrixAuthoring", "MatrixComparison", "FileIO", "Reporters", "EvidenceStore",
        ]),
        .executableTarget(name: "matrix", dependencies: ["MatrixCLI"]),
        .target(name: "TestSupport", dependencies: ["MatrixJSON", "AppStoreModels", "MatrixModel", "MatrixComparison", "EvidenceStore"]),

        .testTarget(name: "MatrixJSONTests", dependencies: ["MatrixJSON", "TestSupport"]),
        .testTarget(name: "MatrixModelTests", dependencies: ["MatrixModel", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "AppStoreModelsTests", dependencies: ["AppStoreModels", "TestSupport"]),
        .testTarget(name: "MatrixEngineTests", dependencies: ["MatrixEngine", "TestSupport"]),
        .testTarget(name: "StoreSimulatorTests", dependencies: ["StoreSimulator", "LocalEnvironment", "TestSupport"]),
        .testTarget(name: "SignedDataTests", dependencies: ["SignedData", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "DriverKitTests", dependencies: ["DriverKit", "TestSupport"]),
        .testTarget(name: "LocalEnvironmentTests", dependencies: ["LocalEnvironment", "TestSupport"]),
        .testTarget(name: "ExecEnvironmentTests", dependencies: ["ExecEnvironment", "TestSupport"], exclude: ["Drivers"]),
        .testTarget(name: "MatrixPlanningTests", dependencies: ["MatrixPlanning", "GuidedEnvironment", "TestSupport"]),
        .testTarget(name: "GuidedEnvironmentTests", dependencies: ["GuidedEnvironment", "TestSupport"]),
        .testTarget(name: "AppStoreAPITests", dependencies: ["AppStoreAPI", "GuidedEnvironment", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "MatrixAuthoringTests", dependencies: ["MatrixAuthoring", "LocalEnvironment", "TestSupport"]),
        .testTarget(name: "MatrixComparisonTests", dependencies: ["MatrixComparison", "TestSupport"]),
        .testTarget(name: "ReportersTests", dependencies: ["Reporters", "TestSupport"], exclude: ["Golden"]),
        .testTarget(name: "EvidenceStoreTests", dependencies: ["EvidenceStore", "LocalEnvironment", "TestSupport"]),
        .testTarget(name: "MatrixCLITests", dependencies: ["MatrixCLI", "AppStoreAPI", "TestSupport"], exclude: ["SchemaSamples"]),
    ],
    swiftLanguageModes: [.v6]
)
