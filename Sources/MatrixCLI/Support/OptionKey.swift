/// An option's name as code refers to it: `args.value(.env)`, never the string `"--env"` again.
///
/// Every option of every command has one key here; ``OptionSpec`` gives a command's meaning of it (value name,
/// help, allowed values), so one key serves commands that use the same name differently (`--env`, `--format`).
struct OptionKey: Hashable, Sendable, CustomStringConvertible {
    /// The option as typed, with its dashes: `--env`.
    let name: String

    private init(_ name: String) {
        self.name = name
    }

    var description: String { name }

    // Every command
    static let help = OptionKey("--help")
    static let version = OptionKey("--version")

    // Output and progress
    static let out = OptionKey("--out")
    static let runID = OptionKey("--run-id")
    static let force = OptionKey("--force")
    static let update = OptionKey("--update")
    static let format = OptionKey("--format")
    static let quiet = OptionKey("--quiet")
    static let verbose = OptionKey("--verbose")
    static let strict = OptionKey("--strict")
    static let jobs = OptionKey("--jobs")

    // Matrices and runs
    static let catalog = OptionKey("--catalog")
    static let bundleId = OptionKey("--bundle-id")
    static let name = OptionKey("--name")
    static let matrix = OptionKey("--matrix")
    static let withoutMatrix = OptionKey("--without-matrix")
    static let env = OptionKey("--env")
    static let driver = OptionKey("--driver")
    static let stepTimeout = OptionKey("--step-timeout")
    static let build = OptionKey("--build")
    static let device = OptionKey("--device")
    static let os = OptionKey("--os")
    static let shard = OptionKey("--shard")
    static let resume = OptionKey("--resume")
    static let caseID = OptionKey("--case")
    static let tag = OptionKey("--tag")
    static let profile = OptionKey("--profile")
    static let appFault = OptionKey("--app-fault")
    static let clock = OptionKey("--clock")
    static let signedEnvironment = OptionKey("--signed-environment")
    static let answers = OptionKey("--answers")
    static let accounts = OptionKey("--accounts")
    static let minScore = OptionKey("--min-score")
    static let failOnSkip = OptionKey("--fail-on-skip")
    static let minPerformed = OptionKey("--min-performed")
    static let noSigning = OptionKey("--no-signing")
    static let allowRunning = OptionKey("--allow-running")

    // The server environment
    static let notifyURL = OptionKey("--notify-url")
    static let accessURL = OptionKey("--access-url")
    static let server = OptionKey("--server")
    static let delivery = OptionKey("--delivery")
    static let seed = OptionKey("--seed")
    static let signingFaults = OptionKey("--signing-faults")
    static let apiKey = OptionKey("--api-key")
    static let apiKeyId = OptionKey("--api-key-id")
    static let apiIssuerId = OptionKey("--api-issuer-id")

    // Apple's APIs
    static let credentials = OptionKey("--credentials")
    static let apiBaseURL = OptionKey("--api-base-url")
    static let timeout = OptionKey("--timeout")
    static let retries = OptionKey("--retries")
    static let renewalRate = OptionKey("--renewal-rate")
    static let interruptPurchases = OptionKey("--interrupt-purchases")

    // Signed data
    static let root = OptionKey("--root")
    static let environment = OptionKey("--environment")
    static let appAppleId = OptionKey("--app-apple-id")
    static let kind = OptionKey("--kind")
    static let batch = OptionKey("--batch")
    static let pem = OptionKey("--pem")
    static let count = OptionKey("--count")
}
