import ExecEnvironment
import Foundation
import LoopbackHTTP
import LoopbackServerAPI
import MatrixJSON
import MatrixModel
import ServerEnvironment
import SignedData
import Signing

/// The `--env server` options of `matrix run`: where the backend listens, how to start it, how to deliver.
struct ServerRunOptions {
    var notify: String
    var access: String
    /// `--server`, split into arguments.
    var command: [String]?
    var delivery: DeliveryMode
    var seed: UInt64
    var timeout: Duration
    /// `--api-key`, `--api-key-id`, `--api-issuer-id`.
    var apiKeyPath: String?
    var apiKeyId: String
    var apiIssuerId: String
    /// `--signing-faults`.
    var signingFaults: Bool

    /// The options that belong to `--env server` only.
    static let serverOnly: [OptionKey] = [.notifyURL, .accessURL, .server, .delivery, .seed, .apiKey, .apiKeyId, .apiIssuerId]

    /// Reads and checks the options; `nil` for environments other than `server`.
    ///
    /// - Throws: ``CommandFailure`` (usage) for server options with another environment, a missing URL, a
    ///   `--server` command that does not split, a bad seed, or local-only options.
    init?(_ args: Arguments, environment: EnvironmentKind) throws(CommandFailure) {
        guard environment == .server else {
            for option in Self.serverOnly where args.value(option) != nil { throw .usage("\(option) needs --env server") }
            if args.has(.signingFaults) { throw .usage("\(OptionKey.signingFaults) needs --env server") }
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
        signingFaults = args.has(.signingFaults)
        apiKeyPath = args.value(.apiKey)
        apiKeyId = args.value(.apiKeyId) ?? "MATRIXKEY1"
        apiIssuerId = args.value(.apiIssuerId) ?? UUID().uuidString.lowercased()
        for (option, value) in [(OptionKey.apiKeyId, apiKeyId), (.apiIssuerId, apiIssuerId)]
        where value.isEmpty || value.count > 100 || !value.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value < 0x7f }) {
            throw .usage("\(option) must be 1 to 100 printable ASCII characters without spaces")
        }
    }

    /// An App Store Connect identifier as the terminal shows it: its first 4 characters and an ellipsis
    /// (`MATR…`), enough to tell two keys apart, not enough to use one.
    static func masked(_ identifier: String) -> String {
        identifier.count <= 4 ? String(repeating: "•", count: identifier.count) : identifier.prefix(4) + "…"
    }

    /// The key whose tokens the loopback App Store Server API accepts: `--api-key` (a PKCS #8 `.p8`, as App Store
    /// Connect issues), else a key made for the run; with its PEM when made here, for the backend.
    /// - Throws: ``CommandFailure``: exit 66 for an unreadable file, 65 for one that is not a P-256 private key.
    func apiKey() throws(CommandFailure) -> (key: P256PrivateKey, pem: String?) {
        guard let apiKeyPath else {
            do {
                let key = try P256PrivateKey.generate()
                return (key, try key.pemRepresentation())
            } catch {
                throw CommandFailure("cannot make a key for the loopback App Store Server API: \(error)", code: .software)
            }
        }
        guard let data = FileManager.default.contents(atPath: apiKeyPath), data.count <= 16 << 10 else {
            throw CommandFailure("--api-key \(apiKeyPath) cannot be read (or is over 16 KiB)", code: .noInput)
        }
        do {
            return (try P256PrivateKey(pemRepresentation: String(decoding: data, as: UTF8.self)), nil)
        } catch {
            throw CommandFailure("--api-key \(apiKeyPath) is not a PEM P-256 private key (a .p8 from App Store Connect): \(error)", code: .dataError)
        }
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
        var settings: ServerSettings
        do {
            let notifyURL = try LoopbackURL.parse(notify, option: OptionKey.notifyURL.name, pickedPort: picked)
            let accessURL = try LoopbackURL.parse(access, option: OptionKey.accessURL.name, pickedPort: picked,
                                                  placeholders: LoopbackURL.accessPlaceholders)
            settings = try ServerSettings(notifyURL: notifyURL, accessURL: accessURL, delivery: delivery, seed: seed, timeout: timeout)
            settings.signingFaults = signingFaults
        } catch {
            throw .usage(error.message)
        }
        var adapter = ServerAdapter(settings: settings, schedule: schedule, signedEnvironment: signedEnvironment)
        let (key, pem) = try apiKey()
        let api: LoopbackServerAPI
        do {
            api = try adapter.startServerAPI(credentials: ServerAPICredentials(keyId: apiKeyId, issuerId: apiIssuerId, bundleId: matrix.app.bundleId,
                                                                              publicKey: key.publicKey),
                                             appAppleId: matrix.app.appAppleId)
        } catch {
            throw CommandFailure(error.message, code: .unavailable)
        }
        // A runner that was killed before it could remove its folder left its key behind: removed now.
        Self.removeAbandonedScratch()
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("\(Self.scratchPrefix)\(getpid())-\(UInt32.random(in: 0 ... .max))")
        let root = scratch.appendingPathComponent("simulator-root.der")
        // Not named after the key id as App Store Connect names downloads: the path is printed, and an id is any
        // printable ASCII, `/` included.
        let keyFile = scratch.appendingPathComponent("SubscriptionKey.p8")
        do {
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try Data(SimulatorPKI.default.root.derRepresentation).write(to: root)
            if let pem {
                try Data(pem.utf8).write(to: keyFile)
                try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyFile.path)
            }
        } catch {
            api.stop()
            try? FileManager.default.removeItem(at: scratch)
            throw CommandFailure("cannot write the simulator root for the backend in \(scratch.path): \(error)", code: .ioError)
        }
        // Should this process end without cleaning up (a trap, SIGKILL), the watchdog ends the backend and removes
        // the folder with the key. Only the matrix executable starts one (a test host has no watchdog command).
        let token = DriverContainment.makeToken()
        var watchdog: Watchdog?
        if let executable = ContainmentWatchdog.executable {
            do {
                watchdog = try ContainmentWatchdog.start(executable: executable, token: token, folder: scratch)
            } catch {
                api.stop()
                try? FileManager.default.removeItem(at: scratch)
                throw CommandFailure("cannot start the process that cleans up after the run: \(error.message)", code: .unavailable)
            }
        }
        let keyPath = pem == nil ? apiKeyPath ?? "" : keyFile.path
        // The ids are App Store Connect identifiers when --api-key-id and --api-issuer-id name a team's real key: the
        // terminal (and a CI log) shows only their first characters; the backend gets them whole in its environment.
        console.info("App Store Server API at \(api.baseURL) (key id \(Self.masked(apiKeyId)), issuer id \(Self.masked(apiIssuerId)), key \(keyPath))")
        guard let command else {
            adapter.attach(nil, scratch: scratch, watchdog: watchdog)
            console.info("delivering to \(settings.notifyURL); asking \(settings.accessURL) for access (start the backend first, or pass --server CMD)")
            return adapter
        }
        var environment = [
            "MATRIX_NOTIFY_URL": settings.notifyURL.description,
            "MATRIX_ACCESS_URL": "http://127.0.0.1:\(settings.accessURL.port)\(settings.accessURL.target)",
            "MATRIX_BUNDLE_ID": matrix.app.bundleId,
            "MATRIX_ENVIRONMENT": signedEnvironment.rawValue,
            "MATRIX_ROOT_CERTIFICATE": root.path,
            "MATRIX_API_BASE_URL": api.baseURL,
            "MATRIX_API_KEY": keyPath,
            "MATRIX_API_KEY_ID": apiKeyId,
            "MATRIX_API_ISSUER_ID": apiIssuerId,
        ]
        if let picked { environment["MATRIX_PORT"] = String(picked) }
        if let id = matrix.app.appAppleId { environment["MATRIX_APP_APPLE_ID"] = String(id) }
        console.info("starting the backend: \(command.joined(separator: " "))")
        do {
            let process = try await BackendProcess.start(command, environment: environment, port: settings.notifyURL.port, timeout: .seconds(30),
                                                         token: token, watchdog: watchdog) { line in
                console.detail("    backend: \(TerminalText.visible(line))")
            }
            adapter.attach(process, scratch: scratch, watchdog: watchdog)
        } catch {
            api.stop()
            try? FileManager.default.removeItem(at: scratch)
            watchdog?.release()
            if Task.isCancelled { throw CommandFailure("stopped on a signal while waiting for the backend to listen; nothing was run", code: .interrupted) }
            throw CommandFailure(error.message, code: .unavailable)
        }
        return adapter
    }

    /// The name of a server run's scratch folder, before the runner's process ID.
    static let scratchPrefix = ContainmentWatchdog.folderPrefix

    /// Removes the scratch folders (with their `.p8` keys) of server runs whose runner no longer runs: one killed
    /// before it could, on a system where no watchdog outlived it. Only this user's folders are touched.
    static func removeAbandonedScratch() {
        let temporary = FileManager.default.temporaryDirectory
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: temporary.path) else { return }
        for name in names where name.hasPrefix(scratchPrefix) {
            let parts = name.dropFirst(scratchPrefix.count).split(separator: "-")
            guard parts.count == 2, let pid = Int32(parts[0]), pid > 0, UInt32(parts[1]) != nil else { continue }
            // Alive (or another user's, EPERM): left alone.
            guard kill(pid, 0) != 0, errno == ESRCH else { continue }
            let url = temporary.appendingPathComponent(name)
            guard let owner = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.ownerAccountID] as? NSNumber,
                  owner.uint32Value == getuid() else { continue }
            try? FileManager.default.removeItem(at: url)
        }
    }
}
