import Foundation
import MatrixEngine
import MatrixModel
import HarnessCore
import Signing
import SimulatedStoreKit
import StoreSimulator

/// The embedded environments: the App Store simulator and an app under test, one fresh instance per case, every
/// transaction, renewal info and notification signed with the simulator's PKI.
///
/// `local` runs the reference app (`AppInstaller.reference(faults:)`, with known faults if asked); `app` runs a
/// team's own StoreKit code through the StoreKit look-alike (``AppUnderTest``).
public struct LocalAdapter: EnvironmentAdapter {
    public var schedule: RenewalSchedule
    public var signedEnvironment: SignedEnvironment
    /// `local`, or `app` for a team's own app.
    public var environment: EnvironmentKind
    /// Makes the app for each new installation.
    public var app: AppInstaller
    let signer: (any PayloadSigner)?
    /// How long the apps may take to handle what one step delivered to them.
    let settleLimit: Duration
    /// How long one call into the app may take.
    let callLimit: Duration

    /// - Parameters:
    ///   - schedule: the clock the run models.
    ///   - signedEnvironment: the `environment` written into signed data (`Sandbox` by default).
    ///   - signing: whether to sign data into the evidence.
    ///   - environment: the environment evidence names: `local` for the reference app, `app` for a team's own.
    ///   - app: makes the app under test for each new installation (a device's first launch, a reinstall, another
    ///     device).
    ///   - settleLimit: how long the apps may take to handle the updates of one step before the step errors.
    /// - Throws: ``AdapterError`` when the simulator's signing key cannot be loaded.
    public init(schedule: RenewalSchedule = .real, signedEnvironment: SignedEnvironment = .sandbox, signing: Bool = true,
                environment: EnvironmentKind = .local, app: AppInstaller,
                settleLimit: Duration = .seconds(10), callLimit: Duration = .seconds(60)) throws {
        self.schedule = schedule
        self.settleLimit = settleLimit
        self.callLimit = callLimit
        self.signedEnvironment = signedEnvironment
        self.environment = environment
        self.app = app
        if signing {
            do {
                signer = SimulatorSigner(signer: try SimulatorSigningChain.signer)
            } catch {
                throw AdapterError("cannot load the simulator's signing key: \(error)", environmentUnavailable: true)
            }
        } else {
            signer = nil
        }
    }

    /// The reference app runs on the run's own thread; a team's app does not.
    public var runsOnCaseThread: Bool { app.runsOnCaseThread }

    public var description: EnvironmentDescription {
        EnvironmentDescription(environment, device: "embedded simulator", os: "n/a (embedded)", build: nil, clock: schedule.description)
    }

    public func startCase(_ matrixCase: MatrixCase, of matrix: Matrix) async throws -> any CaseSession {
        var caseSchedule = schedule
        if let clock = matrix.storeSettings(for: matrixCase).clock {
            switch RenewalSchedule.parse(clock, storeKitTimeRate: matrix.catalog.settings.timeRate) {
            case .success(let parsed): caseSchedule = parsed
            case .failure(let problem): throw AdapterError(problem.message)
            }
        }
        do {
            return try LocalSession(matrix: matrix, matrixCase: matrixCase, schedule: caseSchedule, signedEnvironment: signedEnvironment,
                                    app: app, signer: signer, settleLimit: settleLimit,
                                    callLimit: callLimit)
        } catch {
            throw AdapterError(error.message)
        }
    }
}

/// Signs simulator payloads with the simulator PKI's leaf key, under its `x5c` chain.
struct SimulatorSigner: PayloadSigner {
    let signer: JWSSigner

    func sign(_ payload: Data) throws -> String {
        try signer.sign(payload: payload)
    }
}
