import Foundation
import MatrixEngine
import MatrixModel
import ReferenceApp
import SignedData
import StoreSimulator

/// The embedded `local` environment: the App Store simulator and the reference app, one fresh instance per
/// case, every transaction, renewal info and notification signed with the simulator's PKI.
public struct LocalAdapter: EnvironmentAdapter {
    public var schedule: RenewalSchedule
    public var signedEnvironment: SignedEnvironment
    public var fault: AppFault?
    let signer: (any PayloadSigner)?

    /// - Parameters:
    ///   - schedule: the clock the run models.
    ///   - signedEnvironment: the `environment` written into signed data (`Sandbox` by default).
    ///   - fault: run the reference app with one known bug.
    ///   - signing: whether to sign data into the evidence.
    /// - Throws: ``AdapterError`` when the simulator's signing key cannot be loaded.
    public init(schedule: RenewalSchedule = .real, signedEnvironment: SignedEnvironment = .sandbox, fault: AppFault? = nil, signing: Bool = true) throws {
        self.schedule = schedule
        self.signedEnvironment = signedEnvironment
        self.fault = fault
        if signing {
            do {
                signer = SimulatorSigner(pki: try SimulatorPKI.default)
            } catch {
                throw AdapterError("cannot load the simulator's signing key: \(error)", environmentUnavailable: true)
            }
        } else {
            signer = nil
        }
    }

    public var description: EnvironmentDescription {
        EnvironmentDescription(.local, device: "embedded simulator", os: "n/a (embedded)", build: nil, clock: schedule.description)
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
                                    fault: fault, signer: signer)
        } catch {
            throw AdapterError(error.message)
        }
    }
}

/// Signs simulator payloads with the simulator PKI.
struct SimulatorSigner: PayloadSigner {
    let pki: SimulatorPKI

    func sign(_ payload: Data) throws -> String {
        try pki.sign(payload: payload)
    }
}
