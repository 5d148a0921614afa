import Foundation
import ExecEnvironment
import LoopbackHTTP
import MatrixModel
import ServerEnvironment
import SignedData

/// The `--env server` options of `matrix run`: where the backend listens, how to start it, how to deliver.
struct ServerRunOptions {
    var notify: String
    var access: String
    /// `--server`, split into arguments.
    var command: [String]?
    var delivery: DeliveryMode
    var seed: UInt64
    var timeout: Duration

    /// The options that belong to `--env server` only.
    static let serverOnly: [OptionKey] = [.notifyURL, .accessURL, .server, .delivery, .seed]

    /// Reads and checks the options; `nil` for environments other than `server`.
    ///
    /// - Throws: ``CommandFailure`` (usage) for server options with another environment, a missing URL, a
    ///   `--server` command that does not split, a bad seed, or local-only options.
    init?(_ args: Arguments, environment: EnvironmentKind) throws(CommandFailure) {
        guard environment == .server else {
            for option in Self.serverOnly where args.value(option) != nil { throw .usage("\(option) needs --env server") }
            return nil
        }
        guard let notify = args.value(.notifyURL), let access = args.value(.accessURL) else {
            throw .usage("--env server needs --notify-url URL (where the backend receives App Store Server Notifications) and --access-url URL "
                         + "(where it answers which tiers an account has), e.g. --notify-url http://127.0.0.1:8080/notifications "
                         + "--access-url 'http://127.0.0.1:8080/access/{appAccountToken}'")
        }
        for option: OptionKey in [.appFault, .answers, .accounts] where args.value(option) != nil {
            throw .usage("\(option) does not apply to --env server: the app side is the reference app, the backend is yours")
        }
        self.notify = notify
        self.access = access
        if let text = args.value(.server) {
            do {
                command = try DriverCommandLine.split(text)
            } catch {
                throw .usage("--server: \(error.message)")
            }
        }
        delivery = try args.choice(.delivery, as: DeliveryMode.self) ?? .production
        if let text = args.value(.seed) {
            guard let value = UInt64(text) else { throw .usage("--seed must be a whole number from 0 to \(UInt64.max), not \"\(text)\"") }
            seed = value
        } else {
            seed = 1
        }
        if args.value(.seed) != nil, delivery != .shuffled, delivery != .duplicated {
            throw .usage("--seed orders --delivery shuffled or duplicated; --delivery \(delivery) has no order to choose")
        }
        timeout = try ExecOptions.stepTimeout(args)
    }

    /// Picks a port for `{port}`, checks the URLs, starts the backend when `--server` says how, and makes the
    /// adapter.
    ///
    /// - Throws: ``CommandFailure``: usage for a URL that is not on 127.0.0.1; exit 69 when the backend cannot be
    ///   started or does not listen.
    func start(matrix: Matrix, schedule: RenewalSchedule, signedEnvironment: SignedEnvironment, console: Console) async throws(CommandFailure)
        -> ServerAdapter {
        var picked: UInt16?
        if notify.contains("{port}") || access.contains("{port}") {
            guard command != nil else {
                throw .usage("{port} is filled in only when --server starts the backend; give the backend's port instead")
            }
            do {
                picked = try LoopbackPorts.unused()
            } catch {
                throw CommandFailure("cannot find a free port on 127.0.0.1: \(error)", code: .unavailable)
            }
        }
        let settings: ServerSettings
        do {
            let notifyURL = try LoopbackURL.parse(notify, option: OptionKey.notifyURL.name, pickedPort: picked)
            let accessURL = try LoopbackURL.parse(access, option: OptionKey.accessURL.name, pickedPort: picked,
                                                  placeholders: LoopbackURL.accessPlaceholders)
            settings = try ServerSettings(notifyURL: notifyURL, accessURL: accessURL, delivery: delivery, seed: seed, timeout: timeout)
        } catch {
            throw .usage(error.message)
        }
        var adapter = ServerAdapter(settings: settings, schedule: schedule, signedEnvironment: signedEnvironment)
        guard let command else {
            console.info("delivering to \(settings.notifyURL); asking \(settings.accessURL) for access (start the backend first, or pass --server CMD)")
            return adapter
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("matrix-server-\(getpid())-\(UInt32.random(in: 0 ... .max))")
        let root = scratch.appendingPathComponent("simulator-root.der")
        do {
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try Data(SimulatorPKI.default.root.derRepresentation).write(to: root)
        } catch {
            throw CommandFailure("cannot write the simulator root for the backend in \(scratch.path): \(error)", code: .ioError)
        }
        var environment = [
            "MATRIX_NOTIFY_URL": settings.notifyURL.description,
            "MATRIX_ACCESS_URL": "http://127.0.0.1:\(settings.accessURL.port)\(settings.accessURL.target)",
            "MATRIX_BUNDLE_ID": matrix.app.bundleId,
            "MATRIX_ENVIRONMENT": signedEnvironment.rawValue,
            "MATRIX_ROOT_CERTIFICATE": root.path,
        ]
        if let picked { environment["MATRIX_PORT"] = String(picked) }
        if let id = matrix.app.appAppleId { environment["MATRIX_APP_APPLE_ID"] = String(id) }
        console.info("starting the backend: \(command.joined(separator: " "))")
        do {
            let process = try await BackendProcess.start(command, environment: environment, port: settings.notifyURL.port, timeout: .seconds(30)) { line in
                console.detail("    backend: \(Console.visible(line))")
            }
            adapter.attach(process, scratch: scratch)
        } catch {
            try? FileManager.default.removeItem(at: scratch)
            throw CommandFailure(error.message, code: .unavailable)
        }
        return adapter
    }
}
