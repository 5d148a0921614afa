// swift-tools-version: 6.0
import PackageDescription

// The target graph (docs/architecture.md): each target has one job, and depends only on targets listed before
// it. `scripts/check-imports.py` fails CI when a target imports a package module it does not declare below, declares
// one it never imports, or when this comment and the declarations disagree.
//
//   Threading         → (nothing)
//                       a value behind a lock and a task's preferred executor, for iOS 16 and macOS 13
//   MatrixJSON        → Threading
//                       positioned JSON reader, JSON values, writers, diagnostics
//   AppStoreModels    → MatrixJSON
//                       App Store payloads: transactions, renewal info, notifications
//   MatrixModel       → Threading, MatrixJSON, AppStoreModels
//                       matrix, catalog, loading, environments and their facts, evidence records, judging
//   MatrixEngine      → Threading, MatrixJSON, MatrixModel
//                       runner, adapter protocols, shards
//   StoreSimulator    → MatrixJSON, AppStoreModels, MatrixModel
//                       the App Store on a virtual clock, and the signing of its data
//   HarnessCore       → MatrixModel
//                       the app harness without StoreKit: AppUnderTest and its reports, the App Store side of a step and its mapping
//   SimulatedStoreKit → Threading, AppStoreModels, MatrixModel, StoreSimulator, HarnessCore
//                       the StoreKit 2 look-alike: Product, Transaction, AppStore on the simulated store
//   ReferenceApp      → Threading, MatrixModel, SimulatedStoreKit
//                       the app that follows Apple's guidance, and its known faults
//   COpenSSL          → (nothing)
//                       libcrypto
//   SignedData        → Threading, MatrixJSON, COpenSSL
//                       ES256 JWS, X.509 chains, the simulator PKI
//   DriverKit         → Threading, MatrixJSON, MatrixModel
//                       the driver protocol, for drivers written in Swift
//   FileIO            → (nothing)
//                       bounded reads, durable and buffered writes, scratch directories
//   LoopbackHTTP      → Threading
//                       bounded HTTP/1.1 server and client on 127.0.0.1
//   LocalEnvironment  → Threading, MatrixModel, MatrixEngine, StoreSimulator, HarnessCore, SimulatedStoreKit, ReferenceApp,
//                       SignedData, DriverKit
//                       `local`: the simulator and an app under test, signed evidence
//   ExecEnvironment   → Threading, MatrixModel, MatrixEngine, DriverKit
//                       `exec`: external driver processes
//   MatrixPlanning    → MatrixJSON, MatrixModel, MatrixEngine, LocalEnvironment, StoreSimulator
//                       `matrix plan`
//   AppStoreAPI       → Threading, MatrixJSON, MatrixModel, AppStoreModels, SignedData
//                       App Store Server API and App Store Connect API clients
//   LoopbackServerAPI → Threading, AppStoreModels, MatrixModel, StoreSimulator, SimulatedStoreKit, SignedData, LoopbackHTTP,
//                       AppStoreAPI
//                       the App Store Server API on 127.0.0.1, answering from the run's stores
//   ServerEnvironment → Threading, AppStoreModels, MatrixModel, MatrixEngine, StoreSimulator, LocalEnvironment,
//                       ExecEnvironment, SignedData, LoopbackHTTP, LoopbackServerAPI, AppStoreAPI
//                       `server`: notifications to a team's backend, its access answers
//   GuidedEnvironment → Threading, MatrixJSON, MatrixModel, MatrixEngine, MatrixPlanning, AppStoreAPI, AppStoreModels
//                       `sandbox`, `testflight`: a person guided step by step
//   MatrixAuthoring   → MatrixModel, MatrixJSON
//                       `matrix init`
//   MatrixComparison  → MatrixModel
//                       `matrix compare`
//   Reporters         → MatrixJSON, MatrixModel, MatrixComparison, FileIO
//                       JUnit, Markdown, HTML and JSON reports: rendering only
//   EvidenceStore     → Threading, MatrixJSON, AppStoreModels, MatrixModel, MatrixEngine, FileIO, Reporters, SignedData,
//                       COpenSSL
//                       run directories, evidence writer and reader, archives, verification
//   HarnessRunner     → MatrixJSON, MatrixModel, MatrixEngine, EvidenceStore, HarnessCore
//                       a matrix run against an app, written to the standard run directory: options, result, located failures
//   XcodeHarness      → AppStoreModels, MatrixModel, MatrixEngine, HarnessCore, HarnessRunner
//                       the Xcode environment: StoreKitCaseSession over StoreKit, and on Apple platforms SKTestSession
//   AppHarness        → MatrixJSON, MatrixModel, MatrixEngine, HarnessCore, SimulatedStoreKit, DriverKit,
//                       LocalEnvironment, HarnessRunner
//                       runs a matrix against a team's own app, in its tests or as a driver
//   MatrixCLI         → Threading, MatrixJSON, MatrixModel, MatrixEngine, ReferenceApp, SignedData, DriverKit,
//                       LocalEnvironment, ExecEnvironment, GuidedEnvironment, MatrixPlanning, AppStoreAPI,
//                       MatrixAuthoring, MatrixComparison, FileIO, Reporters, EvidenceStore, ServerEnvironment,
//                       LoopbackHTTP, LoopbackServerAPI
//                       the commands
//   matrix            → ExecEnvironment, MatrixCLI
//                       the executable
//   CarefulStore      → SimulatedStoreKit
//                       example: a store written as Apple advises (examples/apps)
//   TutorialStore     → SimulatedStoreKit
//                       example: a store with the mistakes tutorials make (examples/apps)
//   StoreAppsHarness  → AppHarness, SimulatedStoreKit, CarefulStore, TutorialStore
//                       example: the two stores wired to the app harness (examples/apps)
//   CarefulStoreDriver → AppHarness, StoreAppsHarness
//                       example: the careful store as a driver executable, careful-store-driver (examples/apps)
//   HarnessBench      → AppHarness, EvidenceStore, LocalEnvironment, MatrixEngine, MatrixModel, StoreAppsHarness
//                       bench: the app harness against --env local, harness-bench (bench/)
//   TestSupport       → Threading, MatrixJSON, MatrixModel, MatrixComparison, EvidenceStore, HarnessRunner
//                       code shared by the tests
let package = Package(
    name: "StoreKitMatrix",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .executable(name: "matrix", targets: ["matrix"]),
        .executable(name: "careful-store-driver", targets: ["CarefulStoreDriver"]),
        .executable(name: "harness-bench", targets: ["HarnessBench"]),
        .library(name: "MatrixModel", targets: ["MatrixModel"]),
        .library(name: "DriverKit", targets: ["DriverKit"]),
        .library(name: "SimulatedStoreKit", targets: ["SimulatedStoreKit"]),
        .library(name: "AppHarness", targets: ["AppHarness"]),
        .library(name: "XcodeHarness", targets: ["XcodeHarness"]),
    ],
    targets: [
        .target(name: "Threading"),
        .target(name: "MatrixJSON", dependencies: ["Threading"]),
        .target(name: "AppStoreModels", dependencies: ["MatrixJSON"]),
        .target(name: "MatrixModel", dependencies: ["Threading", "MatrixJSON", "AppStoreModels"]),
        .target(name: "MatrixEngine", dependencies: ["Threading", "MatrixJSON", "MatrixModel"]),
        .target(name: "StoreSimulator", dependencies: ["MatrixJSON", "AppStoreModels", "MatrixModel"]),
        .target(name: "HarnessCore", dependencies: ["MatrixModel"]),
        .target(name: "SimulatedStoreKit", dependencies: ["Threading", "AppStoreModels", "MatrixModel", "StoreSimulator", "HarnessCore"]),
        .target(name: "ReferenceApp", dependencies: ["Threading", "MatrixModel", "SimulatedStoreKit"]),
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        .target(name: "SignedData", dependencies: ["Threading", "MatrixJSON", "COpenSSL"]),
        .target(name: "DriverKit", dependencies: ["Threading", "MatrixJSON", "MatrixModel"]),
        .target(name: "FileIO"),
        .target(name: "LoopbackHTTP", dependencies: ["Threading"]),
        .target(name: "LocalEnvironment",
                dependencies: ["Threading", "MatrixModel", "MatrixEngine", "StoreSimulator", "HarnessCore", "SimulatedStoreKit", "ReferenceApp", "SignedData", "DriverKit"]),
        .target(name: "ExecEnvironment", dependencies: ["Threading", "MatrixModel", "MatrixEngine", "DriverKit"]),
        .target(name: "MatrixPlanning", dependencies: ["MatrixJSON", "MatrixModel", "MatrixEngine", "LocalEnvironment", "StoreSimulator"]),
        .target(name: "AppStoreAPI", dependencies: ["Threading", "MatrixJSON", "MatrixModel", "AppStoreModels", "SignedData"]),
        .target(name: "LoopbackServerAPI",
                dependencies: ["Threading", "AppStoreModels", "MatrixModel", "StoreSimulator", "SimulatedStoreKit", "SignedData", "LoopbackHTTP", "AppStoreAPI"]),
        .target(name: "ServerEnvironment",
                dependencies: ["Threading", "AppStoreModels", "MatrixModel", "MatrixEngine", "StoreSimulator", "LocalEnvironment", "ExecEnvironment", "SignedData", "LoopbackHTTP",
                               "LoopbackServerAPI", "AppStoreAPI"]),
        .target(name: "GuidedEnvironment",
                dependencies: ["Threading", "MatrixJSON", "MatrixModel", "MatrixEngine", "MatrixPlanning", "AppStoreAPI", "AppStoreModels"]),
        .target(name: "MatrixAuthoring", dependencies: ["MatrixModel", "MatrixJSON"]),
        .target(name: "MatrixComparison", dependencies: ["MatrixModel"]),
        .target(name: "Reporters", dependencies: ["MatrixJSON", "MatrixModel", "MatrixComparison", "FileIO"]),
        .target(name: "EvidenceStore",
                dependencies: ["Threading", "MatrixJSON", "AppStoreModels", "MatrixModel", "MatrixEngine", "FileIO", "Reporters", "SignedData", "COpenSSL"]),
        .target(name: "HarnessRunner", dependencies: ["MatrixJSON", "MatrixModel", "MatrixEngine", "EvidenceStore", "HarnessCore"]),
        .target(name: "XcodeHarness", dependencies: ["AppStoreModels", "MatrixModel", "MatrixEngine", "HarnessCore", "HarnessRunner"]),
        .target(name: "AppHarness", dependencies: [
            "MatrixJSON", "MatrixModel", "MatrixEngine", "HarnessCore", "SimulatedStoreKit", "DriverKit", "LocalEnvironment", "HarnessRunner",
        ]),
        .target(name: "MatrixCLI", dependencies: [
            "Threading",
            "MatrixJSON", "MatrixModel", "MatrixEngine", "ReferenceApp", "SignedData", "DriverKit",
            "LocalEnvironment", "ExecEnvironment", "GuidedEnvironment", "MatrixPlanning", "AppStoreAPI",
            "MatrixAuthoring", "MatrixComparison", "FileIO", "Reporters", "EvidenceStore", "ServerEnvironment", "LoopbackHTTP", "LoopbackServerAPI",
        ]),
        .executableTarget(name: "matrix", dependencies: ["ExecEnvironment", "MatrixCLI"]),
        // The example stores are written for StoreKit; SIMULATED_STOREKIT builds them on the look-alike everywhere.
        .target(name: "CarefulStore", dependencies: ["SimulatedStoreKit"], path: "examples/apps/CarefulStore",
                swiftSettings: [.define("SIMULATED_STOREKIT")]),
        .target(name: "TutorialStore", dependencies: ["SimulatedStoreKit"], path: "examples/apps/TutorialStore",
                swiftSettings: [.define("SIMULATED_STOREKIT")]),
        .target(name: "StoreAppsHarness", dependencies: ["AppHarness", "SimulatedStoreKit", "CarefulStore", "TutorialStore"],
                path: "examples/apps/StoreAppsHarness"),
        .executableTarget(name: "CarefulStoreDriver", dependencies: ["AppHarness", "StoreAppsHarness"],
                          path: "examples/apps/CarefulStoreDriver"),
        .executableTarget(name: "HarnessBench",
                          dependencies: ["AppHarness", "EvidenceStore", "LocalEnvironment", "MatrixEngine", "MatrixModel", "StoreAppsHarness"],
                          path: "bench/HarnessBench"),
        .target(name: "TestSupport", dependencies: ["Threading", "MatrixJSON", "MatrixModel", "MatrixComparison", "EvidenceStore", "HarnessRunner"]),

        .testTarget(name: "MatrixJSONTests", dependencies: ["MatrixJSON", "TestSupport"]),
        .testTarget(name: "MatrixModelTests", dependencies: ["MatrixModel", "MatrixJSON", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "AppStoreModelsTests", dependencies: ["AppStoreModels", "TestSupport"]),
        .testTarget(name: "MatrixEngineTests", dependencies: ["MatrixEngine", "MatrixModel", "TestSupport"]),
        .testTarget(name: "StoreSimulatorTests", dependencies: ["AppStoreModels", "LocalEnvironment", "MatrixEngine", "MatrixJSON", "MatrixModel", "ReferenceApp", "SignedData", "SimulatedStoreKit", "StoreSimulator", "TestSupport", "Threading"]),
        .testTarget(name: "SignedDataTests", dependencies: ["SignedData", "MatrixModel", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "DriverKitTests", dependencies: ["DriverKit", "MatrixModel", "TestSupport"]),
        .testTarget(name: "LocalEnvironmentTests", dependencies: ["DriverKit", "LocalEnvironment", "MatrixEngine", "MatrixModel", "ReferenceApp", "SimulatedStoreKit", "StoreSimulator", "TestSupport", "Threading"]),
        .testTarget(name: "ExecEnvironmentTests", dependencies: ["ExecEnvironment", "DriverKit", "MatrixEngine", "MatrixModel", "Reporters", "TestSupport"], exclude: ["Drivers"]),
        .testTarget(name: "MatrixPlanningTests", dependencies: ["GuidedEnvironment", "MatrixModel", "MatrixPlanning", "TestSupport", "Threading"]),
        .testTarget(name: "GuidedEnvironmentTests", dependencies: ["GuidedEnvironment", "MatrixEngine", "Threading"]),
        .testTarget(name: "AppStoreAPITests", dependencies: ["AppStoreAPI", "GuidedEnvironment", "LoopbackHTTP", "MatrixEngine", "MatrixModel", "SignedData", "TestSupport", "Threading"], exclude: ["Fixtures"]),
        .testTarget(name: "MatrixAuthoringTests", dependencies: ["MatrixAuthoring", "LocalEnvironment", "MatrixJSON", "MatrixModel", "ReferenceApp", "TestSupport"]),
        .testTarget(name: "MatrixComparisonTests", dependencies: ["MatrixComparison", "MatrixModel", "TestSupport"]),
        .testTarget(name: "ReportersTests", dependencies: ["Reporters", "EvidenceStore", "FileIO", "MatrixComparison", "MatrixJSON", "MatrixModel", "TestSupport"], exclude: ["Golden"]),
        .testTarget(name: "EvidenceStoreTests", dependencies: ["EvidenceStore", "FileIO", "MatrixEngine", "MatrixJSON", "MatrixModel", "Reporters", "TestSupport", "Threading"]),
        .testTarget(name: "XcodeHarnessTests", dependencies: ["XcodeHarness", "EvidenceStore", "HarnessCore", "LocalEnvironment", "MatrixEngine", "MatrixModel", "SimulatedStoreKit", "StoreAppsHarness", "StoreSimulator", "TestSupport"]),
        .testTarget(name: "HarnessCoreTests", dependencies: ["HarnessCore", "MatrixModel", "Threading"]),
        .testTarget(name: "SimulatedStoreKitTests", dependencies: ["MatrixModel", "SignedData", "SimulatedStoreKit", "StoreSimulator", "TestSupport", "Threading"]),
        .testTarget(name: "AppHarnessTests", dependencies: ["AppHarness", "EvidenceStore", "HarnessRunner", "LocalEnvironment", "MatrixAuthoring", "MatrixEngine", "MatrixJSON", "MatrixModel", "ReferenceApp", "SimulatedStoreKit", "StoreAppsHarness", "TestSupport", "Threading"]),
        .testTarget(name: "StoreAppsHarnessTests", dependencies: ["AppHarness", "StoreAppsHarness", "TestSupport", "Threading"]),
        .testTarget(name: "LoopbackHTTPTests", dependencies: ["LoopbackHTTP"]),
        .testTarget(name: "LoopbackServerAPITests", dependencies: ["LoopbackServerAPI", "AppStoreAPI", "AppStoreModels", "LoopbackHTTP", "MatrixModel", "SignedData", "SimulatedStoreKit", "StoreSimulator", "TestSupport"]),
        .testTarget(name: "ServerEnvironmentTests", dependencies: ["AppStoreAPI", "AppStoreModels", "EvidenceStore", "LoopbackHTTP", "LoopbackServerAPI", "MatrixEngine", "MatrixModel", "ServerEnvironment", "SignedData", "TestSupport", "Threading"]),
        .testTarget(name: "MatrixCLITests", dependencies: ["MatrixCLI", "AppStoreAPI", "EvidenceStore", "LoopbackHTTP", "MatrixEngine", "MatrixModel", "Reporters", "SignedData", "TestSupport"], exclude: ["SchemaSamples"]),
    ],
    swiftLanguageModes: [.v6]
)

