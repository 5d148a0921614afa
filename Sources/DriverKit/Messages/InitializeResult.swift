import MatrixModel

/// The result of `initialize`: what the environment is.
public struct InitializeResult: Sendable, Hashable, Codable {
    /// The protocol version the driver speaks; the runner stops (exit 69) unless it is its own.
    public var protocolVersion: Int
    /// The environment's name in evidence and in the report path, e.g. `xcode`, `device-farm`: 1 to 64
    /// characters, ASCII letters, digits, `.`, `_` and `-`, starting with a letter or digit.
    public var environment: String
    /// The actions the driver performs (`launch`, `purchase`…); steps with other actions are recorded
    /// `skipped` without being sent.
    public var actions: [String]
    /// The StoreKit calls a step's `failNext` can make fail in this environment (`products`, `purchase`, `sync`,
    /// `verification`); a step that sets up a failure for another call is recorded `skipped` without being sent.
    /// Absent means none.
    public var failableCalls: [String]?
    /// The device, e.g. `iPhone 16 Simulator`.
    public var device: String?
    /// The operating system, e.g. `iOS 26.1`.
    public var os: String?
    /// The build under test, e.g. `1.4 (212)`; `--build` overrides it.
    public var build: String?
    /// The time scale the environment runs on, e.g. `real`, `xcode:4` (StoreKit Testing `timeRate`), `sandbox:5`.
    public var clock: String?
    /// The driver program, for the manifest and for bug reports.
    public var driver: DriverInfo?

    /// A result naming actions by their raw values (unknown names are kept and never match a step).
    public init(protocolVersion: Int = DriverProtocol.version, environment: String, actions: [String], failableCalls: [String]? = nil,
                device: String? = nil, os: String? = nil, build: String? = nil, clock: String? = nil, driver: DriverInfo? = nil) {
        self.protocolVersion = protocolVersion
        self.environment = environment
        self.actions = actions
        self.failableCalls = failableCalls
        self.device = device
        self.os = os
        self.build = build
        self.clock = clock
        self.driver = driver
    }

    /// The result of a driver that supports `actions`.
    public init(environment: String, actions: [Action], failableCalls: [StoreKitCall] = [], device: String? = nil, os: String? = nil,
                build: String? = nil, clock: String? = nil, driver: DriverInfo? = nil) {
        self.init(environment: environment, actions: actions.map(\.rawValue),
                  failableCalls: failableCalls.isEmpty ? nil : failableCalls.map(\.rawValue), device: device, os: os, build: build,
                  clock: clock, driver: driver)
    }

    /// Whether `environment` can name a run directory and a `--env` column.
    public var hasValidEnvironmentName: Bool { EnvironmentKind.isValidName(environment) }

    /// The driver program.
    public struct DriverInfo: Sendable, Hashable, Codable {
        /// The program's name and version.
        public var name: String
        public var version: String?

        /// Memberwise.
        public init(name: String, version: String? = nil) {
            self.name = name
            self.version = version
        }
    }
}
