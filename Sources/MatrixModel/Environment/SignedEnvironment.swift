/// The server environment App Store data names in its `environment` field, and what each means for those who
/// receive the data.
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/environment
public enum SignedEnvironment: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// The App Store.
    case production = "Production"
    /// The App Store's sandbox (Sandbox Apple Accounts, TestFlight).
    case sandbox = "Sandbox"
    /// StoreKit Testing in Xcode.
    case xcode = "Xcode"
    /// Local testing of Apple's server libraries.
    case localTesting = "LocalTesting"

    public var description: String { rawValue }

    /// Whether the App Store signs data for this environment with Apple's chain, so that a verifier checks the
    /// signature. Xcode and LocalTesting data is signed locally; Apple's `SignedDataVerifier` skips the signature
    /// check only when its caller asks for one of them.
    /// Apple: https://github.com/apple/app-store-server-library-swift (SignedDataVerifier)
    public var isSignedByTheAppStore: Bool { self == .production || self == .sandbox }

    /// Whether the App Store sends App Store Server Notifications for this environment: Production and Sandbox
    /// only (a notification's `environment` can only be one of those two).
    /// Apple: https://developer.apple.com/documentation/appstoreservernotifications/environment
    public var sendsServerNotifications: Bool { isSignedByTheAppStore }

    /// The environment signed data names when none is asked for: `Xcode` on StoreKit Testing in Xcode's clock
    /// (its data is signed by Xcode, not the App Store), else `Sandbox`.
    /// Apple: https://developer.apple.com/documentation/storekit/appstore/environment/xcode
    public static func following(clock: String?) -> SignedEnvironment {
        RenewalSchedule.environment(ofClock: clock) == .xcode ? .xcode : .sandbox
    }
}
