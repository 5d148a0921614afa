/// Where a difference between runs comes from (docs/compare.md).
public enum Classification: String, Sendable, Hashable, Codable, CaseIterable {
    /// The step fails or errors in `local`, the reference: the expectation contradicts documented StoreKit
    /// behaviour.
    case expectationContradictsStoreKit
    /// The step passes in `local` and fails in an app environment (`exec`, `xcode`, …).
    case appLogic
    /// The step passes in an app environment or `local` and fails in `sandbox`.
    case productSetup
    /// The step passes in `sandbox` and fails in `testflight`.
    case distributedBuild
    /// The step passes in `local` and fails in `server`: the server run's app is the reference app and its App Store
    /// the embedded one, so the team's backend made of the notifications something the App Store did not mean.
    case serverLogic
    /// Every run that did not pass is explained by a documented limit of its environment
    /// (``KnownDivergence``).
    case knownEnvironmentDivergence
    /// None of the rules applies: for instance every run fails, or a verdict is `error` or `blocked`.
    case inconclusive

    /// The classification in words: `app logic`, `known environment divergence`, …
    public var label: String {
        switch self {
        case .expectationContradictsStoreKit: "expectation contradicts StoreKit"
        case .appLogic: "app logic"
        case .productSetup: "product setup"
        case .distributedBuild: "distributed build"
        case .serverLogic: "server logic"
        case .knownEnvironmentDivergence: "known environment divergence"
        case .inconclusive: "inconclusive"
        }
    }

    /// Whether a difference of this classification is explained without anyone acting on it; `matrix compare`
    /// exits 1 when any difference is not.
    public var isExplained: Bool { self == .knownEnvironmentDivergence }
}
