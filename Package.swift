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
//   HarnessCore       → Threading, MatrixModel
//                       the app harness without StoreKit: AppUnderTest and its reports, the App Store side of a step and its mapping,
//                       the store clock and listener wait a conformance calls
//   SimulatedStoreKit → Threading, AppStoreModels, MatrixModel, StoreSimulator, HarnessCore
//                       the StoreKit 2 look-alike: Product, Transaction, AppStore on the simulated store
//   StoreKit          → SimulatedStoreKit
//                       the look-alike under StoreKit's module name, for a team's unchanged `import StoreKit`
//   ReferenceApp      → HarnessCore, Threading, MatrixModel, SimulatedStoreKit
//                       the app that follows Apple's guidance, and its known faults
//   COpenSSL          → (nothing)
//                       libcrypto
//   Signing           → MatrixJSON, COpenSSL (Linux only)
//                       ES256 signatures, SHA-256 and compact JWS: CryptoKit on Apple platforms, libcrypto on Linux
//   SignedData        → Threading, MatrixJSON, Signing, COpenSSL (Linux only)
//                       X.509 certificates read from their DER, chains verified by Security on Apple platforms and
//                       libcrypto on Linux, the verifier of App Store signed data, the simulator PKI
//   DriverKit         → Threading, MatrixJSON, MatrixModel
//                       the driver protocol, for drivers written in Swift
//   FileIO            → (nothing)
//                       bounded reads, durable and buffered writes, scratch directories
//   LoopbackHTTP      → Threading
//                       bounded HTTP/1.1 server and client on 127.0.0.1
//   LocalEnvironment  → Threading, MatrixModel, MatrixEngine, StoreSimulator, HarnessCore, SimulatedStoreKit,
//                       Signing
//                       `local` and `app`: the simulator and an app under test, signed evidence
//   FaultScoring      → HarnessCore, LocalEnvironment, MatrixEngine, MatrixModel, ReferenceApp
//                       `matrix score`: the reference app with each known fault against a matrix
//   ExecEnvironment   → Threading, MatrixModel, MatrixEngine, DriverKit
//                       `exec`: external driver processes
//   MatrixPlanning    → ReferenceApp, MatrixJSON, MatrixModel, MatrixEngine, LocalEnvironment, StoreSimulator
//                       `matrix plan`
//   AppStoreAPI       → Signing, Threading, MatrixJSON, MatrixModel, AppStoreModels, SignedData
//                       App Store Server API and App Store Connect API clients
//   LoopbackServerAPI → Signing, Threading, MatrixJSON, AppStoreModels, MatrixModel, StoreSimulator, SimulatedStoreKit, SignedData,
//                       LoopbackHTTP, AppStoreAPI
//                       the App Store Server API on 127.0.0.1, answering from the run's stores
//   ServerEnvironment → ReferenceApp, Signing, Threading, MatrixJSON, AppStoreModels, MatrixModel, MatrixEngine, StoreSimulator,
//                       LocalEnvironment, ExecEnvironment, SignedData, LoopbackHTTP, LoopbackServerAPI, AppStoreAPI
//                       `server`: notifications to a team's backend, its access answers
//   GuidedEnvironment → Threading, MatrixJSON, MatrixModel, MatrixEngine, MatrixPlanning, AppStoreAPI, AppStoreModels
//                       `sandbox`, `testflight`: a person guided step by step
//   MatrixAuthoring   → MatrixModel, MatrixJSON
//                       `matrix init`
//   Reporters         → MatrixJSON, MatrixModel, FileIO
//                       JUnit, Markdown, HTML and JSON reports: rendering only
//   MatrixComparison  → MatrixJSON, MatrixModel, Reporters
//                       `matrix compare`: joining runs, classifying differences, and their reports
//   EvidenceStore     → Threading, MatrixJSON, MatrixModel, MatrixEngine, FileIO, Reporters, Signing
//                       run directories: the evidence writer and reader, run.json persistence and digests, live reports
//   EvidenceArchive   → Threading, MatrixJSON, MatrixModel, FileIO, EvidenceStore
//                       run archives: packing, bounded unpacking, file integrity
//   EvidenceVerification → AppStoreModels, MatrixJSON, MatrixModel, MatrixEngine, FileIO, Reporters, Signing,
//                       SignedData, EvidenceStore, EvidenceArchive
//                       `matrix verify`: a run or archive unaltered, its signed data and reports re-checked
//   HarnessRunner     → MatrixJSON, MatrixModel, MatrixEngine, EvidenceStore, HarnessCore
//                       a matrix run against an app, written to the standard run directory: options, result, located failures
//   XcodeHarness      → AppStoreModels, MatrixModel, MatrixEngine, HarnessCore, HarnessRunner
//                       the Xcode environment: StoreKitCaseSession over StoreKit, and on Apple platforms SKTestSession
//   AppHarness        → MatrixJSON, MatrixModel, MatrixEngine, HarnessCore, SimulatedStoreKit, LocalEnvironment,
//                       HarnessRunner
//                       runs a matrix against a team's own app, in its tests
//   AppHarnessDriver  → SimulatedStoreKit, AppHarness, DriverKit, HarnessCore, LocalEnvironment, MatrixEngine, MatrixModel
//                       the embedded environment behind the driver protocol: `matrix driver local`, a team's app as a driver
//   MatrixCLI         → AppHarnessDriver, FaultScoring, EvidenceVerification, EvidenceArchive, Signing, Threading, MatrixJSON, MatrixModel, MatrixEngine, ReferenceApp, SignedData, DriverKit,
//                       LocalEnvironment, ExecEnvironment, GuidedEnvironment, MatrixPlanning, AppStoreAPI,
//                       MatrixAuthoring, MatrixComparison, FileIO, Reporters, EvidenceStore, ServerEnvironment,
//                       LoopbackHTTP, LoopbackServerAPI
//                       the commands
//   matrix            → ExecEnvironment, MatrixCLI
//                       the executable
//   CarefulStore      → StoreKit
//                       example: a store written as Apple advises (examples/apps)
//   TutorialStore     → StoreKit
//                       example: a store with the mistakes tutorials make (examples/apps)
//   StoreAppsHarness  → AppHarness, SimulatedStoreKit, CarefulStore, TutorialStore
//                       example: the two stores wired to the app harness (examples/apps)
//   CarefulStoreDriver → AppHarnessDriver, AppHarness, StoreAppsHarness
//                       example: the careful store as a driver executable, careful-store-driver (examples/apps)
//   HarnessBench      → ReferenceApp, AppHarness, EvidenceStore, LocalEnvironment, MatrixEngine, MatrixModel, StoreAppsHarness
//                       bench: the app harness against --env local, harness-bench (bench/)
//   TestSupport       → ExecEnvironment, Threading, MatrixJSON, MatrixModel, MatrixComparison, EvidenceStore, HarnessRunner
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
        .library(name: "StoreKitLookAlike", targets: ["StoreKit"]),
        .library(name: "AppHarness", targets: ["AppHarness"]),
        .library(name: "AppHarnessDriver", targets: ["AppHarnessDriver"]),
        .library(name: "XcodeHarness", targets: ["XcodeHarness"]),
    ],
    targets: [
        .target(name: "Threading"),
        .target(name: "MatrixJSON", dependencies: ["Threading"]),
        .target(name: "AppStoreModels", dependencies: ["MatrixJSON"]),
        .target(name: "MatrixModel", dependencies: ["Threading", "MatrixJSON", "AppStoreModels"]),
        .target(name: "MatrixEngine", dependencies: ["Threading", "MatrixJSON", "MatrixModel"]),
        .target(name: "StoreSimulator", dependencies: ["MatrixJSON", "AppStoreModels", "MatrixModel"]),
        .target(name: "HarnessCore", dependencies: ["Threading", "MatrixModel"]),
        .target(name: "SimulatedStoreKit", dependencies: ["Threading", "AppStoreModels", "MatrixModel", "StoreSimulator", "HarnessCore"]),
        .target(name: "StoreKit", dependencies: ["SimulatedStoreKit"]),
        .target(name: "ReferenceApp", dependencies: ["HarnessCore", "Threading", "MatrixModel", "SimulatedStoreKit"]),
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // ES256, SHA-256 and X.509 chains through CryptoKit and Security on Apple platforms and libcrypto on Linux:
        // the system library is linked only where it is used, so nothing on a Mac needs Homebrew.
        .target(name: "Signing", dependencies: ["MatrixJSON", .target(name: "COpenSSL", condition: .when(platforms: [.linux]))]),
        .target(name: "SignedData", dependencies: ["Threading", "MatrixJSON", "Signing", .target(name: "COpenSSL", condition: .when(platforms: [.linux]))]),
        .target(name: "DriverKit", dependencies: ["Threading", "MatrixJSON", "MatrixModel"]),
        .target(name: "FileIO"),
        .target(name: "LoopbackHTTP", dependencies: ["Threading"]),
        .target(name: "LocalEnvironment",
                dependencies: ["Threading", "MatrixModel", "MatrixEngine", "StoreSimulator", "HarnessCore", "SimulatedStoreKit", "Signing"]),
        .target(name: "FaultScoring", dependencies: ["HarnessCore", "LocalEnvironment", "MatrixEngine", "MatrixModel", "ReferenceApp"]),
        .target(name: "ExecEnvironment", dependencies: ["Threading", "MatrixModel", "MatrixEngine", "DriverKit"]),
        .target(name: "MatrixPlanning", dependencies: ["ReferenceApp", "MatrixJSON", "MatrixModel", "MatrixEngine", "LocalEnvironment", "StoreSimulator"]),
        .target(name: "AppStoreAPI", dependencies: ["Signing", "Threading", "MatrixJSON", "MatrixModel", "AppStoreModels", "SignedData"]),
        .target(name: "LoopbackServerAPI",
                dependencies: ["Signing", "Threading", "MatrixJSON", "AppStoreModels", "MatrixModel", "StoreSimulator", "SimulatedStoreKit", "SignedData",
                               "LoopbackHTTP", "AppStoreAPI"]),
        .target(name: "ServerEnvironment",
                dependencies: ["ReferenceApp", "Signing", "Threading", "MatrixJSON", "AppStoreModels", "MatrixModel", "MatrixEngine", "StoreSimulator",
                               "LocalEnvironment", "ExecEnvironment", "SignedData", "LoopbackHTTP",
                               "LoopbackServerAPI", "AppStoreAPI"]),
        .target(name: "GuidedEnvironment",
                dependencies: ["Threading", "MatrixJSON", "MatrixModel", "MatrixEngine", "MatrixPlanning", "AppStoreAPI", "AppStoreModels"]),
        .target(name: "MatrixAuthoring", dependencies: ["MatrixModel", "MatrixJSON"]),
        .target(name: "Reporters", dependencies: ["MatrixJSON", "MatrixModel", "FileIO"]),
        .target(name: "MatrixComparison", dependencies: ["MatrixJSON", "MatrixModel", "Reporters"]),
        .target(name: "EvidenceStore",
                dependencies: ["Threading", "MatrixJSON", "MatrixModel", "MatrixEngine", "FileIO", "Reporters", "Signing"]),
        .target(name: "EvidenceArchive", dependencies: ["Threading", "MatrixJSON", "MatrixModel", "FileIO", "EvidenceStore"]),
        .target(name: "EvidenceVerification",
                dependencies: ["AppStoreModels", "MatrixJSON", "MatrixModel", "MatrixEngine", "FileIO", "Reporters", "Signing", "SignedData",
                               "EvidenceStore", "EvidenceArchive"]),
        .target(name: "HarnessRunner", dependencies: ["MatrixJSON", "MatrixModel", "MatrixEngine", "EvidenceStore", "HarnessCore"]),
        .target(name: "XcodeHarness", dependencies: ["AppStoreModels", "MatrixModel", "MatrixEngine", "HarnessCore", "HarnessRunner"]),
        .target(name: "AppHarness", dependencies: ["MatrixJSON", "MatrixModel", "MatrixEngine", "HarnessCore", "SimulatedStoreKit", "LocalEnvironment", "HarnessRunner"]),
        .target(name: "AppHarnessDriver", dependencies: ["SimulatedStoreKit", "AppHarness", "DriverKit", "HarnessCore", "LocalEnvironment", "MatrixEngine", "MatrixModel"]),
        .target(name: "MatrixCLI", dependencies: ["AppHarnessDriver", "FaultScoring", "EvidenceVerification", "EvidenceArchive", "Signing", 
            "Threading",
            "MatrixJSON", "MatrixModel", "MatrixEngine", "ReferenceApp", "SignedData", "DriverKit",
            "LocalEnvironment", "ExecEnvironment", "GuidedEnvironment", "MatrixPlanning", "AppStoreAPI",
            "MatrixAuthoring", "MatrixComparison", "FileIO", "Reporters", "EvidenceStore", "ServerEnvironment", "LoopbackHTTP", "LoopbackServerAPI",
        ]),
        .executableTarget(name: "matrix", dependencies: ["ExecEnvironment", "MatrixCLI"]),
        // The example stores import StoreKit as an app's files do; here that is the look-alike's StoreKit module.
        .target(name: "CarefulStore", dependencies: ["StoreKit"], path: "examples/apps/CarefulStore"),
        .target(name: "TutorialStore", dependencies: ["StoreKit"], path: "examples/apps/TutorialStore"),
        .target(name: "StoreAppsHarness", dependencies: ["AppHarness", "SimulatedStoreKit", "CarefulStore", "TutorialStore"],
                path: "examples/apps/StoreAppsHarness"),
        .executableTarget(name: "CarefulStoreDriver", dependencies: ["AppHarnessDriver", "AppHarness", "StoreAppsHarness"],
                          path: "examples/apps/CarefulStoreDriver"),
        .executableTarget(name: "HarnessBench",
                          dependencies: ["ReferenceApp", "AppHarness", "EvidenceStore", "LocalEnvironment", "MatrixEngine", "MatrixModel", "StoreAppsHarness"],
                          path: "bench/HarnessBench"),
        .target(name: "TestSupport", dependencies: ["ExecEnvironment", "Threading", "MatrixJSON", "MatrixModel", "MatrixComparison", "EvidenceStore", "HarnessRunner"]),

        .testTarget(name: "MatrixJSONTests", dependencies: ["MatrixJSON", "TestSupport"]),
        .testTarget(name: "MatrixModelTests", dependencies: ["MatrixModel", "MatrixJSON", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "AppStoreModelsTests", dependencies: ["AppStoreModels", "TestSupport"]),
        .testTarget(name: "MatrixEngineTests", dependencies: ["MatrixEngine", "MatrixModel", "TestSupport"]),
        .testTarget(name: "StoreSimulatorTests", dependencies: ["Signing", "AppStoreModels", "LocalEnvironment", "MatrixEngine", "MatrixJSON", "MatrixModel", "ReferenceApp", "SignedData", "SimulatedStoreKit", "StoreSimulator", "TestSupport", "Threading"]),
        .testTarget(name: "SignedDataTests", dependencies: ["Signing", "SignedData", "MatrixModel", "TestSupport"], exclude: ["Fixtures", "Golden"]),
        .testTarget(name: "DriverKitTests", dependencies: ["DriverKit", "MatrixModel", "TestSupport"]),
        .testTarget(name: "LocalEnvironmentTests", dependencies: ["FaultScoring", "ReferenceApp", "LocalEnvironment", "MatrixEngine", "MatrixModel", "SimulatedStoreKit", "StoreSimulator", "TestSupport"]),
        .testTarget(name: "FaultScoringTests", dependencies: ["FaultScoring", "Threading", "TestSupport", "ReferenceApp", "MatrixModel", "MatrixEngine", "LocalEnvironment"]),
        .testTarget(name: "ExecEnvironmentTests", dependencies: ["ExecEnvironment", "DriverKit", "MatrixEngine", "MatrixModel", "Reporters", "TestSupport"], exclude: ["Drivers"]),
        .testTarget(name: "MatrixPlanningTests", dependencies: ["GuidedEnvironment", "MatrixModel", "MatrixPlanning", "TestSupport", "Threading"]),
        .testTarget(name: "GuidedEnvironmentTests", dependencies: ["GuidedEnvironment", "MatrixEngine", "Threading"]),
        .testTarget(name: "AppStoreAPITests", dependencies: ["Signing", "AppStoreAPI", "GuidedEnvironment", "LoopbackHTTP", "MatrixEngine", "MatrixModel", "SignedData", "TestSupport", "Threading"], exclude: ["Fixtures"]),
        .testTarget(name: "MatrixAuthoringTests", dependencies: ["FaultScoring", "MatrixAuthoring", "LocalEnvironment", "MatrixJSON", "MatrixModel", "ReferenceApp", "TestSupport"]),
        .testTarget(name: "MatrixComparisonTests", dependencies: ["MatrixComparison", "MatrixModel", "Reporters", "TestSupport"], exclude: ["Golden"]),
        .testTarget(name: "ReportersTests", dependencies: ["Reporters", "EvidenceStore", "FileIO", "MatrixJSON", "MatrixModel", "TestSupport"], exclude: ["Golden"]),
        .testTarget(name: "EvidenceArchiveTests", dependencies: ["EvidenceArchive", "EvidenceStore", "TestSupport"]),
        .testTarget(name: "EvidenceStoreTests", dependencies: ["EvidenceArchive", "EvidenceStore", "FileIO", "MatrixEngine", "MatrixJSON", "MatrixModel", "Reporters", "TestSupport", "Threading"]),
        .testTarget(name: "XcodeHarnessTests", dependencies: ["XcodeHarness", "EvidenceStore", "HarnessCore", "LocalEnvironment", "MatrixEngine", "MatrixModel", "SimulatedStoreKit", "StoreAppsHarness", "StoreSimulator", "TestSupport"]),
        .testTarget(name: "HarnessCoreTests", dependencies: ["HarnessCore", "MatrixModel", "Threading"]),
        .testTarget(name: "SimulatedStoreKitTests", dependencies: ["Signing", "MatrixModel", "SignedData", "SimulatedStoreKit", "StoreSimulator", "TestSupport", "Threading"]),
        .testTarget(name: "AppHarnessDriverTests", dependencies: ["TestSupport", "ReferenceApp", "MatrixModel", "LocalEnvironment", "DriverKit", "AppHarnessDriver"]),
        .testTarget(name: "AppHarnessTests", dependencies: ["FaultScoring", "AppHarness", "EvidenceStore", "HarnessRunner", "LocalEnvironment", "MatrixAuthoring", "MatrixEngine", "MatrixJSON", "MatrixModel", "ReferenceApp", "SimulatedStoreKit", "StoreAppsHarness", "TestSupport", "Threading"]),
        .testTarget(name: "StoreAppsHarnessTests", dependencies: ["AppHarness", "StoreAppsHarness", "TestSupport", "Threading"]),
        .testTarget(name: "LoopbackHTTPTests", dependencies: ["LoopbackHTTP"]),
        .testTarget(name: "LoopbackServerAPITests", dependencies: ["Signing", "LoopbackServerAPI", "AppStoreAPI", "AppStoreModels", "LoopbackHTTP", "MatrixModel", "SignedData", "SimulatedStoreKit", "StoreSimulator", "TestSupport"]),
        .testTarget(name: "ServerEnvironmentTests", dependencies: ["Signing", "AppStoreAPI", "AppStoreModels", "EvidenceStore", "LoopbackHTTP", "LoopbackServerAPI", "MatrixEngine", "MatrixModel", "ServerEnvironment", "SignedData", "TestSupport", "Threading"]),
        .testTarget(name: "MatrixCLITests", dependencies: ["EvidenceVerification", "Signing", "MatrixCLI", "AppStoreAPI", "EvidenceStore", "LoopbackHTTP", "MatrixEngine", "MatrixModel", "Reporters", "SignedData", "TestSupport"], exclude: ["SchemaSamples"]),
    ],
    swiftLanguageModes: [.v6]
)

