/// The run's identity and metadata, copied into every record.
public struct RunContext: Sendable, Hashable, Codable {
    public var runID: String
    public var environment: String
    public var build: String
    public var device: String
    public var os: String
    /// Salted SHA-256 of each account's real identifier, by alias, in guided runs.
    public var accountHashes: [String: String]
    /// The known bug the reference app runs with, if any.
    public var appFault: String?

    public init(runID: String, environment: String, build: String, device: String, os: String, accountHashes: [String: String] = [:],
                appFault: String? = nil) {
        self.runID = runID
        self.environment = environment
        self.build = build
        self.device = device
        self.os = os
        self.accountHashes = accountHashes
        self.appFault = appFault
    }
}
