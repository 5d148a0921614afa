import Foundation
import MatrixModel

/// An environment where a matrix's steps are performed: the embedded simulator, an external driver, a person
/// with a device.
///
/// The runner does not know where a step is performed; it asks the adapter for a session per case, performs
/// the case's steps through it in order, and judges each observation.
public protocol EnvironmentAdapter: Sendable {
    /// What the environment is: its name and the metadata it reports.
    var description: EnvironmentDescription { get }

    /// Starts a case on fresh state for its account.
    ///
    /// - Throws: ``AdapterError`` when the environment cannot start the case; every step is then recorded as
    ///   `error` (the first) and `blocked` (the rest).
    func startCase(_ matrixCase: MatrixCase, of matrix: Matrix) async throws -> any CaseSession

    /// Whether a resumed case is rebuilt by performing its recorded steps again (deterministic environments),
    /// rather than continued where the world left it (a person with a device).
    var replaysOnResume: Bool { get }

    /// Whether a run with one job runs its cases on a thread of its own (``CaseThread``) instead of the shared
    /// pool: for code in this process that leaves nothing running after its case (the reference app). A team's
    /// own app keeps the shared pool, where the call a killed process left behind returns after its case ends
    /// on another thread, as it always has.
    var runsOnCaseThread: Bool { get }
}

extension EnvironmentAdapter {
    public var replaysOnResume: Bool { true }
    public var runsOnCaseThread: Bool { false }
}

/// One case in progress in an environment. A session is owned by the task that runs its case.
public protocol CaseSession: AnyObject {
    /// Performs one step and observes the result.
    ///
    /// - Parameters:
    ///   - step: the step, as written in the matrix.
    ///   - index: its 0-based index in the case.
    /// - Throws: ``AdapterError`` when the step could not be performed or observed (recorded as `error`).
    func perform(_ step: Step, index: Int) async throws -> StepOutcome

    /// Ends the case and releases what the session holds.
    func close() async
}

/// What an environment made of a step.
public enum StepOutcome: Sendable {
    /// The step was performed; this is what was observed. `modelledWallTimeMs` is how long the step takes in
    /// real time in the environment the run models (e.g. a Sandbox renewal wait), when known.
    case observed(Observation, modelledWallTimeMs: Int64?)
    /// The environment does not support the step; the reason says why. `limit` names the documented environment
    /// limit when that is why (``GuidedLimit``): the record, and those of the rest of the case, carry it.
    case skipped(reason: String, limit: GuidedLimit? = nil)
}

/// The environment's name and the metadata it reports for evidence.
public struct EnvironmentDescription: Sendable, Hashable, Codable {
    /// `local`, `exec`, `sandbox`, `testflight`, or the name an external driver reports.
    public var kind: EnvironmentKind
    public var device: String?
    public var os: String?
    public var build: String?
    /// The schedule the run models, e.g. `real`, `sandbox:5`, `xcode:4`.
    public var clock: String?

    /// The environment's name, as evidence records it.
    public var name: String { kind.name }

    public init(_ kind: EnvironmentKind, device: String? = nil, os: String? = nil, build: String? = nil, clock: String? = nil) {
        self.kind = kind
        self.device = device
        self.os = os
        self.build = build
        self.clock = clock
    }
}

/// An environment could not perform or observe something.
public struct AdapterError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A sentence saying what went wrong and, where possible, what to do.
    public var message: String
    /// When true, the environment itself is unusable (exit 69), not just this step.
    public var environmentUnavailable: Bool

    public init(_ message: String, environmentUnavailable: Bool = false) {
        self.message = message
        self.environmentUnavailable = environmentUnavailable
    }

    public var description: String { message }
}

/// The current wall-clock time, injected so that runs and reports can be tested.
public protocol WallClock: Sendable {
    func now() -> Date
}

/// The system's wall clock.
public struct SystemWallClock: WallClock {
    public init() {}
    public func now() -> Date { Date() }
}
