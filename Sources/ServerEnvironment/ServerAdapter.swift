import AppStoreAPI
import AppStoreModels
import ExecEnvironment
import Foundation
import LocalEnvironment
import LoopbackHTTP
import LoopbackServerAPI
import MatrixEngine
import MatrixModel
import ReferenceApp
import SignedData
import StoreSimulator
import Threading

/// What a `server` run needs besides the matrix: where the backend listens, how to deliver, the seed.
public struct ServerSettings: Sendable {
    /// Where notifications are posted (`--notify-url`).
    public var notifyURL: LoopbackURL
    /// The access endpoint's template (`--access-url`).
    public var accessURL: LoopbackURL
    public var delivery: DeliveryMode
    /// Orders `shuffled` and `duplicated` deliveries (`--seed`).
    public var seed: UInt64
    /// How long the backend may take to answer one request (`--step-timeout`).
    public var timeout: Duration
    /// `--signing-faults`: after each step's notifications, also send faulted copies of the first one, which a
    /// correct server refuses (``SigningFault``); the step fails when the backend accepts one or its access changes.
    public var signingFaults = false
    /// Which run this is, 64 random bits, for identifiers and tokens: different runs against one backend never
    /// share one. appAccountTokens hash all 64 bits, notification UUIDs carry them, and transaction ids (decimal
    /// digits that fit an Int64) start in an identifier space chosen by them, one of 922 billion.
    public var runIdentity: UInt64
    let pki: SimulatorPKI

    /// - Parameters:
    ///   - runIdentity: a run draws 64 bits from the system's random source; tests pass their own.
    /// - Throws: ``ServerSetupError`` when the simulator's signing key cannot be loaded.
    public init(notifyURL: LoopbackURL, accessURL: LoopbackURL, delivery: DeliveryMode = .production, seed: UInt64 = 1,
                timeout: Duration = .seconds(30), runIdentity: UInt64 = UInt64.random(in: .min ... .max)) throws(ServerSetupError) {
        self.notifyURL = notifyURL
        self.accessURL = accessURL
        self.delivery = delivery
        self.seed = seed
        self.timeout = timeout
        self.runIdentity = runIdentity
        do {
            pki = try SimulatorPKI.default
        } catch {
            throw ServerSetupError("cannot load the simulator's signing key: \(error)")
        }
    }

    /// How long one step's requests to the backend may take together (deliveries, retries, access requests):
    /// 4 × ``timeout``. A request that would start later is not made, and the step is an error that says so.
    public var stepLimit: Duration { timeout * 4 }

    /// The identifier space of the run's first case: from 1 (space 0 is a local run's) to the last that leaves
    /// room for ``ServerAdapter/casesPerRun`` cases, chosen by ``runIdentity``.
    var firstIdentifierSpace: Int64 {
        1 + Int64(runIdentity % UInt64(AppStoreSimulator.identifierSpaces - ServerAdapter.casesPerRun - 1))
    }

    var limits: HTTPLimits { HTTPLimits(headerBytes: 16 << 10, bodyBytes: 64 << 10, timeout: timeout) }
    var poster: NotificationPoster { NotificationPoster(url: notifyURL, limits: limits) }
    var access: AccessChecker { AccessChecker(url: accessURL, limits: limits) }
}

/// The backend the runner started, checked after every step; once it is lost, every case stops.
final class BackendWatch: Sendable {
    let process: BackendProcess
    private let problem = Locked<String?>(nil)

    init(_ process: BackendProcess) {
        self.process = process
    }

    /// Why the backend was lost, once it was.
    var lost: String? { problem.withLock { $0 } }

    /// Checks the backend; `false` (and ``lost`` set) when it no longer runs and listens on its port.
    func check() async -> Bool {
        if lost != nil { return false }
        guard let found = await process.problem() else { return true }
        problem.withLock { $0 = $0 ?? found }
        return false
    }
}

/// `server`: the team's backend under test. The embedded store and reference app play the App Store and the
/// app (as `local` does), the store's App Store Server Notifications V2 are posted to the backend, and the
/// backend's access answer is what each step observes.
public struct ServerAdapter: EnvironmentAdapter {
    public var settings: ServerSettings
    public var schedule: RenewalSchedule
    public var signedEnvironment: SignedEnvironment
    /// The backend the runner started (`--server`), stopped by ``shutdown()``, the scratch folder it was given,
    /// and the watchdog that cleans both up should the runner end first.
    var backend: (watch: BackendWatch?, scratch: URL, watchdog: Watchdog?)?
    /// The loopback App Store Server API of the run, when started (``startServerAPI(credentials:appAppleId:)``).
    public private(set) var serverAPI: LoopbackServerAPI?

    public init(settings: ServerSettings, schedule: RenewalSchedule = .real, signedEnvironment: SignedEnvironment = .sandbox) {
        self.settings = settings
        self.schedule = schedule
        self.signedEnvironment = signedEnvironment
    }

    /// Makes the adapter stop `process` (when the runner started one), remove `scratch` and release `watchdog` at
    /// ``shutdown()``; the process is checked after every step (``backendProblem``).
    package mutating func attach(_ process: BackendProcess?, scratch: URL, watchdog: Watchdog? = nil) {
        backend = (process.map(BackendWatch.init), scratch, watchdog)
    }

    /// Why the run stopped early, when the backend the runner started stopped running or listening during it: the
    /// run then ends with exit 69, its evidence kept up to the step before.
    public var backendProblem: String? { backend?.watch?.lost }

    /// Starts the loopback App Store Server API on a free port of 127.0.0.1: it answers from every case's store
    /// of the run, accepts bearer tokens made with `credentials`, and posts the test notifications it is asked for
    /// to the notification URL.
    /// - Throws: ``ServerSetupError`` when no port can be bound.
    public mutating func startServerAPI(credentials: ServerAPICredentials, appAppleId: Int64?) throws(ServerSetupError) -> LoopbackServerAPI {
        let configuration = ServerAPIConfiguration(credentials: credentials, appAppleId: appAppleId, environment: signedEnvironment.rawValue,
                                                   pki: settings.pki)
        let poster = settings.poster
        do {
            let api = try LoopbackServerAPI.start(configuration, state: ServerAPIState()) { signedPayload, signedDate in
                let notification = OutgoingNotification(notificationUUID: "", notificationType: "TEST", signedDate: signedDate, account: "",
                                                        origin: "test", signedPayload: signedPayload)
                guard let attempt = await poster.attempt(notification, at: signedDate) else { return [] }
                return [SendAttemptItem(attemptDate: MillisecondsDate(attempt.attemptDate), sendAttemptResult: attempt.sendAttemptResult)]
            }
            serverAPI = api
            return api
        } catch {
            throw ServerSetupError("cannot start the loopback App Store Server API on 127.0.0.1: \(error)")
        }
    }

    /// Stops the loopback App Store Server API and the backend the runner started, if it did, and removes what it
    /// was given.
    public func shutdown() async {
        serverAPI?.stop()
        guard let backend else { return }
        await backend.watch?.process.stop()
        try? FileManager.default.removeItem(at: backend.scratch)
        backend.watchdog?.release()
    }

    /// Cases a run gives identifier spaces of their own; a larger matrix shares them round (its cases are still apart
    /// by their notification UUIDs and appAccountTokens).
    static let casesPerRun: Int64 = 1_000_000

    public var description: EnvironmentDescription {
        EnvironmentDescription(.server, device: "backend at \(settings.notifyURL) (delivery \(settings.delivery)"
                                   + (settings.delivery == .shuffled || settings.delivery == .duplicated ? ", seed \(settings.seed)" : "")
                                   + (settings.signingFaults ? ", signing faults)" : ")"),
                               os: "n/a (server)", build: nil, clock: schedule.description)
    }

    public func startCase(_ matrixCase: MatrixCase, of matrix: Matrix) async throws -> any CaseSession {
        let caseNumber = Int64(matrix.cases.firstIndex { $0.id == matrixCase.id } ?? 0)
        let space = settings.firstIdentifierSpace + caseNumber % Self.casesPerRun
        var caseSchedule = schedule
        if let clock = matrix.storeSettings(for: matrixCase).clock {
            switch RenewalSchedule.parse(clock, storeKitTimeRate: matrix.catalog.settings.timeRate) {
            case .success(let parsed): caseSchedule = parsed
            case .failure(let problem): throw AdapterError(problem.message)
            }
        }
        let session: LocalSession
        do {
            session = try LocalSession(matrix: matrix, matrixCase: matrixCase, schedule: caseSchedule, signedEnvironment: signedEnvironment,
                                       app: .reference(), signer: SimulatorPayloadSigner(pki: settings.pki), identifierSpace: space,
                                       identifierSalt: settings.runIdentity)
        } catch {
            throw AdapterError(error.message)
        }
        serverAPI?.state.register(caseID: matrixCase.id, store: session.store)
        return ServerSession(local: session, settings: settings, identifierSpace: space, apiState: serverAPI?.state, backend: backend?.watch)
    }
}
