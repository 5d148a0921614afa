import Foundation
import DriverKit
import ExecEnvironment
import MatrixModel

/// The `--env exec` options of `matrix run`: the driver's command line and the step timeout.
struct ExecOptions {
    /// The driver's arguments, executable first.
    var arguments: [String]
    var stepTimeout: Duration

    static let defaultStepTimeoutSeconds = 30.0

    init(arguments: [String], stepTimeout: Duration) {
        self.arguments = arguments
        self.stepTimeout = stepTimeout
    }

    /// Reads and checks the options; `nil` for environments other than `exec`.
    ///
    /// - Throws: ``CommandFailure`` (usage) for `--env exec` without `--driver`, a driver command that does not
    ///   split, exec-only options with another environment, local-only options with exec, or a bad timeout.
    init?(_ args: Arguments, environment: EnvironmentKind) throws(CommandFailure) {
        let driver = args.value(.driver)
        guard environment == .exec else {
            if args.value(.driver) != nil { throw .usage("\(OptionKey.driver) needs --env exec") }
            // A backend's requests are timed by it too (ServerRunOptions).
            if args.value(.stepTimeout) != nil, environment != .server { throw .usage("\(OptionKey.stepTimeout) needs --env exec or server") }
            return nil
        }
        guard let driver else { throw .usage("--env exec needs --driver CMD, the command line that starts the driver") }
        for option: OptionKey in [.appFault, .signedEnvironment, .clock] where args.value(option) != nil {
            throw .usage("\(option) applies to --env local; pass it to the driver instead, e.g. --driver \"matrix driver local \(option) …\"")
        }
        do {
            arguments = try DriverCommandLine.split(driver)
        } catch {
            throw .usage("--driver: \(error.message)")
        }
        stepTimeout = try Self.stepTimeout(args)
    }

    /// `--step-timeout SECONDS` (decimals allowed), or the default 30 s.
    ///
    /// - Throws: ``CommandFailure`` (usage) for a value that is not a number of seconds in (0, 86400].
    static func stepTimeout(_ args: Arguments) throws(CommandFailure) -> Duration {
        var seconds = defaultStepTimeoutSeconds
        if let text = args.value(.stepTimeout) {
            guard let value = Double(text), value.isFinite, value > 0, value <= 86_400 else {
                throw .usage("--step-timeout must be a number of seconds above 0 and at most 86400, not \"\(text)\"")
            }
            seconds = value
        }
        return .milliseconds(Int64((seconds * 1000).rounded(.up)))
    }

    /// Starts the driver and completes the `initialize` handshake.
    ///
    /// - Parameters:
    ///   - bytes: the matrix file, sent to the driver with the `.storekit` file's `catalogBytes`.
    ///   - resumed: for a resumed run, its manifest: a driver that now reports another environment, or another
    ///     device, OS or build than the evidence records, is refused (one run's evidence is about one of each).
    /// - Throws: ``CommandFailure`` with exit 69 when the driver cannot be started, does not complete the
    ///   handshake, or does not match `resumed`.
    func start(matrix: Matrix, path: String, bytes: [UInt8], catalogBytes: [UInt8]?, console: Console,
               resumed: RunManifest? = nil) async throws(CommandFailure) -> ExecAdapter {
        let params = InitializeParams(
            matrix: matrix, matrixPath: path, matrixSource: String(decoding: bytes, as: UTF8.self),
            catalogSource: catalogBytes.map { String(decoding: $0, as: UTF8.self) },
            runner: .init(name: "matrix", version: MatrixCommand.version))
        // The handshake carries the matrix and its catalog in one line: refuse here, before any driver starts, a matrix
        // the protocol's line limit cannot carry, rather than let the driver's refusal read as the driver's fault.
        if let size = try? DriverProtocol.line(DriverRequest(id: 1, call: .initialize(params))).count - 1, size > DriverProtocol.maximumLineBytes {
            throw CommandFailure("\(path): the matrix and its catalog make an initialize message of \(size) bytes; the driver protocol "
                                 + "carries at most \(DriverProtocol.maximumLineBytes) bytes per line (docs/driver-protocol.md). Split the "
                                 + "matrix into smaller ones (--env local has no such limit)", code: .dataError)
        }
        let configuration = ExecAdapter.Configuration(arguments: arguments, stepTimeout: stepTimeout) { line in
            console.detail("    driver: \(line)")
        }
        let adapter: ExecAdapter
        do {
            adapter = try await ExecAdapter.start(configuration, params: params)
        } catch {
            throw CommandFailure(error.message, hint: "Check that `\(arguments.joined(separator: " "))` speaks the driver protocol "
                                 + "(docs/driver-protocol.md); run with --verbose to see its stderr.", code: .unavailable)
        }
        if let resumed {
            let described = adapter.description
            let pairs: [(String, String?, String)] = [("environment", described.name, resumed.environment), ("device", described.device, resumed.device),
                                                      ("OS", described.os, resumed.os), ("build", described.build, resumed.build)]
            // A value the driver does not report is not compared.
            if let (name, now, before) = pairs.first(where: { $0.1 != nil && $0.1 != $0.2 }) {
                await adapter.shutdown()
                throw CommandFailure("the driver now reports \(name) \"\(now ?? "")\"; the run's evidence records \"\(before)\". "
                                     + "A run's evidence is about one \(name); start a new run for this one", code: .unavailable)
            }
        }
        return adapter
    }
}
