import Adapters
import DriverKit
import Foundation
import MatrixCore

/// The `--env exec` options of `matrix run`: the driver's command line and the step timeout.
struct ExecOptions {
    /// The driver's arguments, executable first; `nil` for other environments.
    var arguments: [String]?
    var stepTimeout: Duration

    static let defaultStepTimeoutSeconds = 30.0

    /// Reads and checks the options.
    ///
    /// - Throws: ``CommandFailure`` (usage) for `--env exec` without `--driver`, a driver command that does not
    ///   split, exec-only options with another environment, local-only options with exec, or a bad timeout.
    init(_ args: Arguments, environment: String) throws(CommandFailure) {
        let driver = args.value("--driver")
        if environment == "exec" {
            guard let driver else { throw .usage("--env exec needs --driver CMD, the command line that starts the driver") }
            do {
                arguments = try DriverCommandLine.split(driver)
            } catch {
                throw .usage("--driver: \(error.message)")
            }
            for option in ["--app-fault", "--signed-environment"] where args.value(option) != nil {
                throw .usage("\(option) applies to --env local; pass it to the driver instead, e.g. --driver \"matrix driver local \(option) …\"")
            }
        } else {
            for option in ["--driver", "--step-timeout"] where args.value(option) != nil {
                throw .usage("\(option) needs --env exec")
            }
            arguments = nil
        }
        var seconds = Self.defaultStepTimeoutSeconds
        if let text = args.value("--step-timeout") {
            guard let value = Double(text), value.isFinite, value > 0, value <= 86_400 else {
                throw .usage("--step-timeout must be a number of seconds above 0 and at most 86400, not \"\(text)\"")
            }
            seconds = value
        }
        stepTimeout = .milliseconds(Int64((seconds * 1000).rounded(.up)))
    }

    /// Starts the driver and completes the `initialize` handshake.
    ///
    /// - Throws: ``CommandFailure`` with exit 69 when the driver cannot be started or does not complete the
    ///   handshake.
    func start(matrix: Matrix, sources: InputFiles.LoadedMatrix, path: String, console: Console) async throws(CommandFailure) -> ExecAdapter {
        guard let arguments else { throw CommandFailure("--env exec needs --driver", code: .usage, showUsage: true) }
        let params = InitializeParams(
            matrix: matrix, matrixPath: path, matrixSource: String(decoding: sources.bytes, as: UTF8.self),
            catalogSource: sources.catalogBytes.map { String(decoding: $0, as: UTF8.self) },
            runner: .init(name: "matrix", version: MatrixCommand.version))
        let configuration = ExecAdapter.Configuration(arguments: arguments, stepTimeout: stepTimeout) { line in
            console.detail("    driver: \(line)")
        }
        do {
            return try await ExecAdapter.start(configuration, params: params)
        } catch {
            throw CommandFailure(error.message + "\nCheck that `\(arguments.joined(separator: " "))` speaks the driver protocol "
                                 + "(docs/driver-protocol.md); run with --verbose to see its stderr.", code: .unavailable)
        }
    }
}
