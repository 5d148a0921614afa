import Foundation
import AppStoreAPI
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The command-line options shared by everything that calls Apple's APIs, and the exit codes of their errors.
struct AppStoreOptions {
    static let options: [OptionSpec] = [
        .value(.credentials, "FILE", "JSON credentials file outside the repository (default: APP_STORE_CONNECT_* variables)"),
        .value(.apiBaseURL, "URL", "send API requests here instead of Apple's (a proxy or a mock)"),
        .value(.timeout, "SECONDS", "seconds one request may take (default 30)"),
        .value(.retries, "N", "extra attempts after a temporary failure (default 3)"),
    ]

    var credentialsFile: String?
    var baseURL: URL?
    var timeout: Double = 30
    var retry = RetryPolicy.standard

    /// Reads the options.
    ///
    /// - Throws: ``CommandFailure`` (usage) for a malformed URL, an `http` URL to another host than this
    ///   machine, or a timeout or retry count out of range.
    init(_ args: Arguments) throws(CommandFailure) {
        credentialsFile = args.value(.credentials)
        if let text = args.value(.apiBaseURL) {
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
                  let host = url.host, !host.isEmpty, url.query == nil else {
                throw .usage("--api-base-url must be an http(s) URL without a query, such as https://proxy.example/appstore")
            }
            guard scheme == "https" || ["localhost", "127.0.0.1", "::1", "[::1]"].contains(host) else {
                throw .usage("--api-base-url must use https unless it is on this machine (localhost): the requests carry credentials")
            }
            baseURL = url
        }
        if let text = args.value(.timeout) {
            guard let seconds = Double(text), seconds.isFinite, seconds >= 0.1, seconds <= 600 else {
                throw .usage("--timeout must be a number of seconds from 0.1 to 600, not \"\(text)\"")
            }
            timeout = seconds
        }
        if let retries = try args.int(.retries, in: 0...10) {
            retry.maximumAttempts = retries + 1
        }
    }

    /// Loads the credentials from `--credentials` or the environment.
    ///
    /// - Throws: ``CommandFailure``: 69 when none are configured, 66 for an unreadable file, 65 for an invalid
    ///   one (diagnostics printed), 64 for a file inside the repository.
    func credentials(environment: [String: String], currentDirectory: String, console: Console) throws(CommandFailure) -> AppStoreCredentials {
        do {
            return try CredentialsLoader.load(file: credentialsFile, environment: environment, guard: RepositoryGuard(currentDirectory: currentDirectory))
        } catch {
            throw Self.failure(error, console: console)
        }
    }

    /// The exit code and message for a credentials or accounts file problem; diagnostics are printed.
    static func failure(_ error: CredentialsError, console: Console) -> CommandFailure {
        _ = MatrixCommand.report(error.diagnostics, on: console)
        switch error.kind {
        case .missing: return CommandFailure(error.message, code: .unavailable)
        case .unreadable: return CommandFailure(error.message, code: .noInput)
        case .invalid: return CommandFailure(error.message, code: .dataError)
        case .insideRepository: return CommandFailure(error.message, code: .usage)
        }
    }

    /// The exit code for an API error: 65 when the input named something that does not exist or is invalid,
    /// 130 when interrupted, 69 otherwise (Apple unreachable, credentials refused, rate limited).
    static func failure(_ error: AppStoreAPIError) -> CommandFailure {
        let code: ExitCode = switch error.code {
        case .notFound, .badRequest: .dataError
        case .cancelled: .interrupted
        default: .unavailable
        }
        return CommandFailure(error.description, code: code)
    }
}
