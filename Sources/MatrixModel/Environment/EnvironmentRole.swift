/// What an environment stands for when runs are compared (docs/compare.md).
///
/// `local` is the reference: the embedded simulator and a reference app that follows Apple's guidance.
/// `sandbox` and `testflight` are Apple's test environments, `server` is the user's backend, and every other
/// name (`exec`, `xcode`, a driver's own name) is an app environment: the user's app on StoreKit Testing or a
/// driver.
public enum EnvironmentRole: String, Sendable, Hashable, Codable, CaseIterable {
    /// `local`: failures there mean the expectation contradicts StoreKit.
    case reference
    /// The user's app through a driver (`exec`, `xcode`, …).
    case app
    /// The Sandbox environment with a Sandbox Apple Account.
    case sandbox
    /// A TestFlight build.
    case testflight
    /// The user's backend receiving App Store Server Notifications.
    case server

    /// The role of an environment name; names compare without regard to case.
    public init(environment: String) {
        self = EnvironmentKind(environment).role
    }

    /// Where the role sits on the path from the reference to a distributed build: reference 0, app 1,
    /// sandbox 2, TestFlight 3; `nil` for the server, which is not on that path.
    public var layer: Int? {
        switch self {
        case .reference: 0
        case .app: 1
        case .sandbox: 2
        case .testflight: 3
        case .server: nil
        }
    }
}
