/// Where a case runs, with what the project knows about each place: the one vocabulary of environments that
/// the runner, `compare`, `init` and `plan` share (`--env`, the `environment` of evidence).
///
/// The facts of Apple's test environments (renewal limits, daily renewals, billing retry, server notifications)
/// are written here once; ``RenewalSchedule`` applies them to a modelled clock, ``KnownDivergence`` explains
/// differences with them, guided runs and plans skip the steps they rule out.
public enum EnvironmentKind: Sendable, Hashable, CustomStringConvertible {
    /// The embedded App Store simulator with the reference app: the reference.
    case local
    /// The team's own StoreKit code, compiled against the StoreKit look-alike, against the embedded simulator.
    case app
    /// An external driver process speaking the driver protocol.
    case exec
    /// The team's build on a device with Sandbox Apple Accounts, a person guided step by step.
    case sandbox
    /// A TestFlight build, a person guided step by step.
    case testflight
    /// The team's app against StoreKit Testing in Xcode (`SKTestSession`).
    case xcode
    /// The team's backend, receiving App Store Server Notifications.
    case server
    /// The name an external driver reports for its environment (`local-driver`, `staging-iphone`, …).
    case driver(String)

    /// The environments `--env` takes, in the order help lists them.
    public static let builtIn: [EnvironmentKind] = [.local, .app, .exec, .sandbox, .testflight, .xcode, .server]

    /// The environment `matrix driver local` reports: the embedded simulator and reference app behind the
    /// driver protocol.
    public static let localDriverName = "local-driver"

    /// The environment the app harness reports when it serves a team's app over the driver protocol
    /// (`AppHarness.serveDriver`): a driver never names a built-in environment, `app` included.
    public static let appDriverName = "app-driver"

    /// Whether `name` can name an environment in evidence and in a report path: 1 to 64 ASCII letters, digits,
    /// `.`, `_` or `-`, starting with a letter or digit. A name that only looks like another (`local` with a
    /// no-break space) is not one.
    public static func isValidName(_ name: String) -> Bool {
        let scalars = Array(name.unicodeScalars)
        guard let first = scalars.first, scalars.count <= 64, first.isASCII, first.properties.isAlphabetic || ("0"..."9").contains(first)
        else { return false }
        return scalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0)) }
    }

    /// The kind an environment name stands for; names compare without regard to case, and any other name is an
    /// external driver's.
    public init(_ name: String) {
        self = Self.builtIn.first { $0.name == name.lowercased() } ?? .driver(name)
    }

    /// The name evidence records and `--env` use: `local`, `sandbox`, or the driver's own name.
    public var name: String {
        switch self {
        case .local: "local"
        case .app: "app"
        case .exec: "exec"
        case .sandbox: "sandbox"
        case .testflight: "testflight"
        case .xcode: "xcode"
        case .server: "server"
        case .driver(let name): name
        }
    }

    public var description: String { name }

    /// The environment in words, for sentences: "Sandbox", "TestFlight", "StoreKit Testing in Xcode".
    public var displayName: String {
        switch self {
        case .local: "the embedded simulator"
        case .app: "the embedded simulator with the app's own StoreKit code"
        case .exec: "an external driver"
        case .sandbox: "Sandbox"
        case .testflight: "TestFlight"
        case .xcode: "StoreKit Testing in Xcode"
        case .server: "the app's server"
        case .driver(let name): name
        }
    }

    /// What the environment stands for when runs are compared.
    public var role: EnvironmentRole {
        switch self {
        case .local: .reference
        case .sandbox: .sandbox
        case .testflight: .testflight
        case .server: .server
        case .app, .exec, .xcode, .driver: .app
        }
    }

    /// Whether steps are performed by the embedded simulator and reference app (`local`, or `matrix driver
    /// local` behind the driver protocol): a pass there shows the matrix agrees with StoreKit's rules.
    public var isEmbeddedReference: Bool {
        self == .local || self == .driver(Self.localDriverName)
    }

    /// Whether a person performs the steps, guided by the runner.
    public var isGuided: Bool { self == .sandbox || self == .testflight }

    /// Whether the environment's signed data comes from the embedded App Store, signed with the simulator PKI
    /// (`local`, `app`, `server`): `matrix verify` trusts the simulator root for it by default.
    public var isSignedBySimulator: Bool { self == .local || self == .app || self == .server }

    // MARK: Apple's test environments

    /// How many renewals the environment performs before auto-renew stops, if it limits them.
    ///
    /// - Sandbox: 12. "Subscriptions automatically renew up to 12 times before auto-renewal turns off on the
    ///   thirteenth renewal attempt."
    ///   Apple: https://developer.apple.com/documentation/storekit/testing-an-auto-renewable-subscription
    /// - TestFlight: 6. "Each subscription is renewed daily, up to 6 times within a one-week period."
    ///   Apple: https://developer.apple.com/help/app-store-connect/test-a-beta-version/testing-subscriptions-and-in-app-purchases-in-testflight
    /// - Every other environment: no limit (Apple documents none for StoreKit Testing in Xcode; this project's
    ///   choice).
    public var renewalLimit: Int? {
        switch self {
        case .sandbox: 12
        case .testflight: 6
        default: nil
        }
    }

    /// Whether every subscription renews once a day, whatever its duration (TestFlight).
    /// Apple: https://developer.apple.com/help/app-store-connect/test-a-beta-version/testing-subscriptions-and-in-app-purchases-in-testflight
    public var renewsDaily: Bool { self == .testflight }

    /// Why a renewal cannot fail with a billing issue and enter billing retry or a billing grace period here,
    /// with what to use instead; `nil` when it can. TestFlight only: "To test subscriptions entering or exiting
    /// billing retry, you must test with a Sandbox Apple Account".
    /// Apple: https://developer.apple.com/help/app-store-connect/test-a-beta-version/testing-subscriptions-and-in-app-purchases-in-testflight
    public var billingRetryUnsupportedReason: String? {
        guard self == .testflight else { return nil }
        return "TestFlight purchases cannot fail to renew: to test billing retry or a billing grace period, subscribe "
            + "with a Sandbox Apple Account (clock sandbox:<rate>) and turn off Allow Purchases & Renewals "
            + "(\(Self.testFlightPage))"
    }

    /// The Apple page that states the environment's limits, when it has some.
    public var limitsPage: String? {
        switch self {
        case .sandbox: "https://developer.apple.com/documentation/storekit/testing-an-auto-renewable-subscription"
        case .testflight: Self.testFlightPage
        default: nil
        }
    }

    /// Apple's page for testing in TestFlight.
    public static let testFlightPage =
        "https://developer.apple.com/help/app-store-connect/test-a-beta-version/testing-subscriptions-and-in-app-purchases-in-testflight"
}

extension EnvironmentKind: Codable {
    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }
}
