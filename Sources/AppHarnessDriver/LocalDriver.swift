import DriverKit
import HarnessCore
import LocalEnvironment
import MatrixEngine
import MatrixModel
import SimulatedStoreKit

/// The embedded environment behind the driver protocol (`matrix driver local`, and a team's app served by the app
/// harness): the same simulator, app and signing as ``LocalAdapter``, reached through `initialize`, `reset` and
/// `perform`.
///
/// It is the protocol's reference implementation: a run through it must leave the same evidence as
/// `--env local`, apart from the run's identity, the environment's name and wall-clock times.
public final class LocalDriver: Driver {
    /// The environment name `matrix driver local` reports.
    public static let environmentName = EnvironmentKind.localDriverName

    /// The environment name this driver reports.
    let environment: String
    /// Makes the app for each new installation.
    let app: AppInstaller

    let signedEnvironment: SignedEnvironment
    let signing: Bool
    let clock: String?
    let version: String
    let settleLimit: Duration
    let callLimit: Duration
    private var matrix: Matrix?
    private var adapter: LocalAdapter?
    private var session: (any CaseSession)?
    private var caseID: String?

    /// - Parameters:
    ///   - signedEnvironment: the `environment` written into signed data.
    ///   - signing: whether to sign transactions, renewal infos and notifications.
    ///   - clock: the clock to model, as `matrix run --clock` takes it (`real` by default); read at `initialize`,
    ///     where the catalog's `timeRate` is known.
    ///   - version: the tool's version, reported in `initialize`.
    ///   - environment: the environment name reported in `initialize`.
    ///   - app: makes the app under test for each new installation.
    ///   - settleLimit: how long the app may take to handle the updates of one step.
    public init(signedEnvironment: SignedEnvironment = .sandbox, signing: Bool = true, clock: String? = nil, version: String,
                environment: String = LocalDriver.environmentName, app: AppInstaller,
                settleLimit: Duration = .seconds(10), callLimit: Duration = .seconds(60)) {
        self.environment = environment
        self.settleLimit = settleLimit
        self.callLimit = callLimit
        self.app = app
        self.signedEnvironment = signedEnvironment
        self.signing = signing
        self.clock = clock
        self.version = version
    }

    /// Rebuilds the matrix from the sources and reports every action, the local device, OS and clock.
    public func initialize(_ params: InitializeParams) async throws -> InitializeResult {
        let matrix = try params.loadMatrix()
        if signedEnvironment == .production, signing, matrix.app.appAppleId == nil {
            // As `matrix run --signed-environment Production`: Apple's verifiers require appAppleId in Production
            // notifications. Apple: https://developer.apple.com/documentation/appstoreservernotifications/data
            throw DriverError.unavailable("--signed-environment Production needs app.appAppleId in the matrix")
        }
        self.matrix = matrix
        var schedule = RenewalSchedule.real
        if let clock {
            switch RenewalSchedule.parse(clock, storeKitTimeRate: matrix.catalog.settings.timeRate) {
            case .success(let parsed): schedule = parsed
            case .failure(let problem): throw DriverError.unavailable("--clock: \(problem.message)")
            }
        }
        let adapter: LocalAdapter
        do {
            adapter = try LocalAdapter(schedule: schedule, signedEnvironment: signedEnvironment, signing: signing, app: app,
                                       settleLimit: settleLimit, callLimit: callLimit)
        } catch {
            throw DriverError.unavailable(String(describing: error))
        }
        self.adapter = adapter
        let local = adapter.description
        return InitializeResult(environment: environment, actions: Action.allCases, failableCalls: StoreKitCall.allCases,
                                device: local.device, os: local.os,
                                build: local.build, clock: local.clock, driver: .init(name: "matrix driver local", version: version))
    }

    /// Starts the case named in `params` on a fresh simulator, as ``LocalAdapter`` does.
    public func reset(_ params: ResetParams) async throws {
        await closeSession()
        guard let matrix, let adapter else {
            throw DriverError(code: DriverError.invalidRequest, message: "reset before initialize")
        }
        guard let matrixCase = matrix.cases.first(where: { $0.id == params.case.id }) else {
            throw DriverError(code: DriverError.invalidParams, message: "the matrix has no case \"\(params.case.id)\"")
        }
        do {
            session = try await adapter.startCase(matrixCase, of: matrix)
            caseID = matrixCase.id
        } catch {
            throw DriverError.environment(String(describing: error))
        }
    }

    /// Performs the step in the current case's ``LocalSession``.
    public func perform(_ params: PerformParams, progress: DriverProgress) async throws -> PerformResult {
        guard let session, caseID == params.case else {
            throw DriverError(code: DriverError.invalidRequest, message: "perform for case \"\(params.case)\" without a reset for it")
        }
        switch try await session.perform(params.step, index: params.index) {
        case .observed(let observation, let modelled):
            return .observed(observation, modelledWallTimeMs: modelled)
        case .skipped(let reason, _):
            return .unsupported(reason: reason)
        }
    }

    /// Closes the current case.
    public func shutdown() async {
        await closeSession()
    }

    private func closeSession() async {
        await session?.close()
        session = nil
        caseID = nil
    }
}
