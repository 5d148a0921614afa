// swift-tools-version: 6.0
import PackageDescription

// The target graph (docs/architecture.md): each target has one job, and depends only on targets listed before
// it. `scripts/check-imports.py` fails CI when a target imports a package module it does not declare below, declares
// one it never imports, or when this comment and the declarations disagree.
//
//   MatrixJSON        → (nothing)
//                       positioned JSON reader, JSON values, writers, diagnostics
//   AppStoreModels    → MatrixJSON
//                       App Store payloads: transactions, renewal info, notifications
//   MatrixModel       → MatrixJSON, AppStoreModels
//                       matrix, catalog, loading, environments and their facts, evidence records, judging
//   MatrixEngine      → MatrixJSON, MatrixModel
//                       runner, adapter protocols, shards
//   StoreSimulator    → MatrixJSON, AppStoreModels, MatrixModel
//                       the App Store on a virtual clock, and the signing of its data
//   HarnessCore       → MatrixModel
//                       the app harness without StoreKit: AppUnderTest and its reports, the App Store side of a step and its mapping
//   SimulatedStoreKit → AppStoreModels, MatrixModel, StoreSimulator, HarnessCore
//                       the StoreKit 2 look-alike: Product, Transaction, AppStore on the simulated store
//   ReferenceApp      → MatrixModel, SimulatedStoreKit
//                       the app that follows Apple's guidance, and its known faults
//   COpenSSL          → (nothing)
//                       libcrypto
//   SignedData        → MatrixJSON, COpenSSL
//                       ES256 JWS, X.509 chains, the simulator PKI
//   DriverKit         → MatrixJSON, MatrixModel
//                       the driver protocol, for drivers written in Swift
//   FileIO            → (nothing)
//                       bounded reads, durable and buffered writes, scratch directories
//   LoopbackHTTP      → (nothing)
//                       bounded HTTP/1.1 server and client on 127.0.0.1
//   LocalEnvironment  → MatrixModel, MatrixEngine, StoreSimulator, HarnessCore, SimulatedStoreKit, ReferenceApp,
//                       SignedData, DriverKit
//                       `local`: the simulator and an app under test, signed evidence
//   ExecEnvironment   → MatrixModel, MatrixEngine, DriverKit
//                       `exec`: external driver processes
//   MatrixPlanning    → MatrixJSON, MatrixModel, MatrixEngine, LocalEnvironment, StoreSimulator
//                       `matrix plan`
//   AppStoreAPI       → MatrixJSON, MatrixModel, AppStoreModels, SignedData
//                       App Store Server API and App Store Connect API clients
//   LoopbackServerAPI → AppStoreModels, MatrixModel, StoreSimulator, SimulatedStoreKit, SignedData, LoopbackHTTP,
//                       AppStoreAPI
//                       the App Store Server API on 127.0.0.1, answering from the run's stores
//   ServerEnvironment → AppStoreModels, MatrixModel, MatrixEngine, StoreSimulator, LocalEnvironment,
//                       ExecEnvironment, SignedData, LoopbackHTTP, LoopbackServerAPI, AppStoreAPI
//                       `server`: notifications to a team's backend, its access answers
//   GuidedEnvironment → MatrixJSON, MatrixModel, MatrixEngine, MatrixPlanning, AppStoreAPI, AppStoreModels
//                       `sandbox`, `testflight`: a person guided step by step
//   MatrixAuthoring   → MatrixModel, MatrixJSON
//                       `matrix init`
//   MatrixComparison  → MatrixModel
//                       `matrix compare`
//   Reporters         → MatrixJSON, MatrixModel, MatrixComparison, FileIO
//                       JUnit, Markdown, HTML and JSON reports: rendering only
//   EvidenceStore     → MatrixJSON, AppStoreModels, MatrixModel, MatrixEngine, FileIO, Reporters, SignedData,
//                       COpenSSL
//                       run directories, evidence writer and reader, archives, verification
//   HarnessRunner     → MatrixJSON, MatrixModel, MatrixEngine, EvidenceStore, HarnessCore
//                       a matrix run against an app, written to the standard run directory: options, result, located failures
//   XcodeHarness      → AppStoreModels, MatrixModel, MatrixEngine, HarnessCore, HarnessRunner
//                       the Xcode environment: StoreKitCaseSession over StoreKit, and on Apple platforms SKTestSession
//   AppHarness        → MatrixJSON, MatrixModel, MatrixEngine, HarnessCore, SimulatedStoreKit, DriverKit,
//                       LocalEnvironment, HarnessRunner
//                       runs a matrix against a team's own app, in its tests or as a driver
//   MatrixCLI         → MatrixJSON, MatrixModel, MatrixEngine, ReferenceApp, SignedData, DriverKit,
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
//   TestSupport       → MatrixJSON, MatrixModel, MatrixComparison, EvidenceStore, HarnessRunner
//                       code shared by the tests
let package = Package(
    name: "StoreKitMatrix",
    platforms: [.macOS(.v15), .iOS(.v18)],
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
        .target(name: "MatrixJSON"),
        .target(name: "AppStoreModels", dependencies: ["MatrixJSON"]),
        .target(name: "MatrixModel", dependencies: ["MatrixJSON", "AppStoreModels"]),
        .target(name: "MatrixEngine", dependencies: ["MatrixJSON", "MatrixModel"]),
        .target(name: "StoreSimulator", dependencies: ["MatrixJSON", "AppStoreModels", "MatrixModel"]),
        .target(name: "HarnessCore", dependencies: ["MatrixModel"]),
        .target(name: "SimulatedStoreKit", dependencies: ["AppStoreModels", "MatrixModel", "StoreSimulator", "HarnessCore"]),
        .target(name: "ReferenceApp", dependencies: ["MatrixModel", "SimulatedStoreKit"]),
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        .target(name: "SignedData", dependencies: ["MatrixJSON", "COpenSSL"]),
        .target(name: "DriverKit", dependencies: ["MatrixJSON", "MatrixModel"]),
        .target(name: "FileIO"),
        .target(name: "LoopbackHTTP"),
        .target(name: "LocalEnvironment",
                dependencies: ["MatrixModel", "MatrixEngine", "StoreSimulator", "HarnessCore", "SimulatedStoreKit", "ReferenceApp", "SignedData", "DriverKit"]),
        .target(name: "ExecEnvironment", dependencies: ["MatrixModel", "MatrixEngine", "DriverKit"]),
        .target(name: "MatrixPlanning", dependencies: ["MatrixJSON", "MatrixModel", "MatrixEngine", "LocalEnvironment", "StoreSimulator"]),
        .target(name: "AppStoreAPI", dependencies: ["MatrixJSON", "MatrixModel", "AppStoreModels", "SignedData"]),
        .target(name: "LoopbackServerAPI",
                dependencies: ["AppStoreModels", "MatrixModel", "StoreSimulator", "SimulatedStoreKit", "SignedData", "LoopbackHTTP", "AppStoreAPI"]),
        .target(name: "ServerEnvironment",
                dependencies: ["AppStoreModels", "MatrixModel", "MatrixEngine", "StoreSimulator", "LocalEnvironment", "ExecEnvironment", "SignedData", "LoopbackHTTP",
                               "LoopbackServerAPI", "AppStoreAPI"]),
        .target(name: "GuidedEnvironment",
                dependencies: ["MatrixJSON", "MatrixModel", "MatrixEngine", "MatrixPlanning", "AppStoreAPI", "AppStoreModels"]),
        .target(name: "MatrixAuthoring", dependencies: ["MatrixModel", "MatrixJSON"]),
        .target(name: "MatrixComparison", dependencies: ["MatrixModel"]),
        .target(name: "Reporters", dependencies: ["MatrixJSON", "MatrixModel", "MatrixComparison", "FileIO"]),
        .target(name: "EvidenceStore",
                dependencies: ["MatrixJSON", "AppStoreModels", "MatrixModel", "MatrixEngine", "FileIO", "Reporters", "SignedData", "COpenSSL"]),
        .target(name: "HarnessRunner", dependencies: ["MatrixJSON", "MatrixModel", "MatrixEngine", "EvidenceStore", "HarnessCore"]),
        .target(name: "XcodeHarness", dependencies: ["AppStoreModels", "MatrixModel", "MatrixEngine", "HarnessCore", "HarnessRunner"]),
        .target(name: "AppHarness", dependencies: [
            "MatrixJSON", "MatrixModel", "MatrixEngine", "HarnessCore", "SimulatedStoreKit", "DriverKit", "LocalEnvironment", "HarnessRunner",
        ]),
        .target(name: "MatrixCLI", dependencies: [
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
        .target(name: "TestSupport", dependencies: ["MatrixJSON", "MatrixModel", "MatrixComparison", "EvidenceStore", "HarnessRunner"]),

        .testTarget(name: "MatrixJSONTests", dependencies: ["MatrixJSON", "TestSupport"]),
        .testTarget(name: "MatrixModelTests", dependencies: ["MatrixModel", "MatrixJSON", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "AppStoreModelsTests", dependencies: ["AppStoreModels", "TestSupport"]),
        .testTarget(name: "MatrixEngineTests", dependencies: ["MatrixEngine", "MatrixModel", "TestSupport"]),
        .testTarget(name: "StoreSimulatorTests", dependencies: ["StoreSimulator", "AppStoreModels", "LocalEnvironment", "MatrixEngine", "MatrixJSON", "MatrixModel", "ReferenceApp", "SignedData", "SimulatedStoreKit", "TestSupport"]),
        .testTarget(name: "SignedDataTests", dependencies: ["SignedData", "MatrixModel", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "DriverKitTests", dependencies: ["DriverKit", "MatrixModel", "TestSupport"]),
        .testTarget(name: "LocalEnvironmentTests", dependencies: ["LocalEnvironment", "DriverKit", "MatrixEngine", "MatrixModel", "ReferenceApp", "SimulatedStoreKit", "StoreSimulator", "TestSupport"]),
        .testTarget(name: "ExecEnvironmentTests", dependencies: ["ExecEnvironment", "DriverKit", "MatrixEngine", "MatrixModel", "Reporters", "TestSupport"], exclude: ["Drivers"]),
        .testTarget(name: "MatrixPlanningTests", dependencies: ["MatrixPlanning", "GuidedEnvironment", "MatrixModel", "TestSupport"]),
        .testTarget(name: "GuidedEnvironmentTests", dependencies: ["GuidedEnvironment", "MatrixEngine"]),
        .testTarget(name: "AppStoreAPITests", dependencies: ["AppStoreAPI", "GuidedEnvironment", "LoopbackHTTP", "MatrixEngine", "MatrixModel", "SignedData", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "MatrixAuthoringTests", dependencies: ["MatrixAuthoring", "LocalEnvironment", "MatrixJSON", "MatrixModel", "ReferenceApp", "TestSupport"]),
        .testTarget(name: "MatrixComparisonTests", dependencies: ["MatrixComparison", "MatrixModel", "TestSupport"]),
        .testTarget(name: "ReportersTests", dependencies: ["Reporters", "EvidenceStore", "FileIO", "MatrixComparison", "MatrixJSON", "MatrixModel", "TestSupport"], exclude: ["Golden"]),
        .testTarget(name: "EvidenceStoreTests", dependencies: ["EvidenceStore", "FileIO", "MatrixEngine", "MatrixJSON", "MatrixModel", "Reporters", "TestSupport"]),
        .testTarget(name: "XcodeHarnessTests", dependencies: ["XcodeHarness", "EvidenceStore", "HarnessCore", "LocalEnvironment", "MatrixEngine", "MatrixModel", "SimulatedStoreKit", "StoreAppsHarness", "StoreSimulator", "TestSupport"]),
        .testTarget(name: "HarnessCoreTests", dependencies: ["HarnessCore", "MatrixModel"]),
        .testTarget(name: "SimulatedStoreKitTests", dependencies: ["SimulatedStoreKit", "MatrixModel", "SignedData", "StoreSimulator", "TestSupport"]),
        .testTarget(name: "AppHarnessTests", dependencies: ["AppHarness", "EvidenceStore", "HarnessRunner", "LocalEnvironment", "MatrixAuthoring", "MatrixEngine", "MatrixJSON", "MatrixModel", "ReferenceApp", "SimulatedStoreKit", "StoreAppsHarness", "TestSupport"]),
        .testTarget(name: "StoreAppsHarnessTests", dependencies: ["StoreAppsHarness", "AppHarness", "TestSupport"]),
        .testTarget(name: "LoopbackHTTPTests", dependencies: ["LoopbackHTTP"]),
        .testTarget(name: "LoopbackServerAPITests", dependencies: ["LoopbackServerAPI", "AppStoreAPI", "AppStoreModels", "LoopbackHTTP", "MatrixModel", "SignedData", "SimulatedStoreKit", "StoreSimulator", "TestSupport"]),
        .testTarget(name: "ServerEnvironmentTests", dependencies: ["ServerEnvironment", "AppStoreAPI", "AppStoreModels", "EvidenceStore", "LoopbackHTTP", "LoopbackServerAPI", "MatrixEngine", "MatrixModel", "SignedData", "TestSupport"]),
        .testTarget(name: "MatrixCLITests", dependencies: ["MatrixCLI", "AppStoreAPI", "EvidenceStore", "LoopbackHTTP", "MatrixEngine", "MatrixModel", "Reporters", "SignedData", "TestSupport"], exclude: ["SchemaSamples"]),
    ],
    swiftLanguageModes: [.v6]
)

// Library and executable code is optimised in debug builds too: the tests, and the binary they start, run whole
// matrices that sign and verify every item, which unoptimised code does five to seven times slower (the suite's
// CPU time falls from about 200 s to 60 s). Tests themselves stay unoptimised. For a debugger, build with
// `MATRIX_ONONE=1` (CI also builds that way, to check both optimisation levels give the same evidence).
if Context.environment["MATRIX_ONONE"] == nil {
    for target in package.targets where target.type == .regular || target.type == .executable {
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-O"], .when(configuration: .debug))]
    }
}
