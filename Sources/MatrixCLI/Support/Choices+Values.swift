import AppStoreAPI
import MatrixModel
import ReferenceApp

/// Value sets that several commands' options share.
extension Choices {
    /// `--clock`: a keyword, `xcode:<timeRate>` or `sandbox:<minutes>`; ``RenewalSchedule/parse(_:storeKitTimeRate:)``
    /// checks the argument after the colon.
    static let clock = Choices(["real", "xcode", "sandbox", "testflight"], families: [
        Family(keyword: "xcode", argument: "<timeRate>",
               completions: RenewalSchedule.TimeRate.allCases.filter { !$0.isDeprecated }.map { "xcode:\($0.rawValue)" }),
        Family(keyword: "sandbox", argument: "<" + RenewalSchedule.SandboxRenewalRate.allCases.map { String($0.rawValue) }.joined(separator: "|") + ">",
               completions: RenewalSchedule.SandboxRenewalRate.allCases.map { "sandbox:\($0.rawValue)" }),
    ], caseInsensitive: true)

    /// The environment signed data names (`--signed-environment`, `matrix verify --environment`).
    static let signedEnvironments = Choices(SignedEnvironment.self)

    /// `--app-fault`: too many to list in an error, which points to `matrix faults`.
    static let appFaults = Choices(AppFault.self, listedBy: (noun: "app fault", command: "matrix faults"))

    /// `--format text|json`.
    static let textOrJSON = Choices(["text", "json"])
}
