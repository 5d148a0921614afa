import Foundation
import DriverKit
import MatrixEngine
import MatrixModel

/// The `exec` environment: an external driver process speaking the driver protocol
/// (`docs/driver-protocol.md`) performs the steps and reports observations.
///
/// Create it with ``start(_:params:)``, which starts the driver and completes the `initialize` handshake so
/// that ``description`` carries the driver's environment name and metadata. Each case checks a driver out
/// of a pool (one per concurrent job), resets it and performs its steps; a driver that times out, crashes or
/// writes garbage is killed and replaced for the next case. Call ``shutdown()`` when the run ends.
public final class ExecAdapter: EnvironmentAdapter {
    /// How to run the driver.
    public struct Configuration: Sendable {
        /// The driver's command line, executable first (see ``DriverCommandLine``).
        public var arguments: [String]
        /// How long a request may go unanswered (a `progress` notification extends it), default 30 s.
        public var stepTimeout: Duration
        /// Receives the driver's stderr lines and progress messages, for `--verbose`.
        public var log: (@Sendable (String) -> Void)?

        /// How to run `arguments`, waiting at most `stepTimeout` for each answer.
        public init(arguments: [String], stepTimeout: Duration = .seconds(30), log: (@Sendable (String) -> Void)? = nil) {
            self.arguments = arguments
            self.stepTimeout = stepTimeout
            self.log = log
        }
    }

    /// The driver's environment name and metadata, from its `initialize` answer.
    public let description: EnvironmentDescription
    /// What the driver answered to `initialize`.
    public let initializeResult: InitializeResult
    let configuration: Configuration
    let pool: DriverPool
    let supportedActions: Set<String>
    /// The StoreKit calls the driver can make fail (`failNext`).
    let failableCalls: Set<String>

    private init(configuration: Configuration, result: InitializeResult, pool: DriverPool) {
        self.configuration = configuration
        self.initializeResult = result
        self.pool = pool
        self.supportedActions = Set(result.actions)
        self.failableCalls = Set(result.failableCalls ?? [])
        self.description = EnvironmentDescription(EnvironmentKind(result.environment), device: result.device, os: result.os, build: result.build,
                                                  clock: result.clock)
    }

    /// Makes this process a child subreaper (Linux, `prctl(PR_SET_CHILD_SUBREAPER)`), so that a driver's
    /// descendant whose parent exits stays this process's descendant and is ended and reaped with its driver.
    ///
    /// Call it once, early, only in a process that owns its whole process tree (the `matrix` executable does);
    /// never in a host such as a test runner, which would adopt every orphan of everything it starts. Without
    /// it, a driver's processes are still found by their environment token and ended.
    ///
    /// - Returns: whether this process is now a subreaper (always `false` outside Linux).
    /// - SeeAlso: https://man7.org/linux/man-pages/man2/prctl.2.html (PR_SET_CHILD_SUBREAPER)
    @discardableResult
    public static func adoptOrphanedDescendants() -> Bool {
        DriverContainment.becomeSubreaper()
    }

    /// Starts the driver and completes the `initialize` handshake.
    ///
    /// - Parameter params: the matrix for `initialize`, sent to every driver process the run starts.
    /// - Throws: ``AdapterError`` with `environmentUnavailable` (exit 69) when the driver cannot be started,
    ///   does not answer within the step timeout, exits, writes something that is not a protocol message,
    ///   answers with an error, speaks another protocol version, or names its environment unusably.
    public static func start(_ configuration: Configuration, params: InitializeParams) async throws(AdapterError) -> ExecAdapter {
        let launch: DriverPool.Launcher = { () async throws(DriverFailure) -> (DriverConnection, InitializeResult) in
            try await Self.launchAndInitialize(configuration, params: params)
        }
        do {
            let (connection, result) = try await launch()
            return ExecAdapter(configuration: configuration, result: result,
                               pool: DriverPool(first: connection, timeout: configuration.stepTimeout, launch: launch))
        } catch {
            throw AdapterError("the exec environment is unavailable: \(error.message)", environmentUnavailable: true)
        }
    }

    static func launchAndInitialize(_ configuration: Configuration, params: InitializeParams) async throws(DriverFailure)
        -> (DriverConnection, InitializeResult) {
        let connection = try DriverConnection.launch(configuration.arguments, logLine: configuration.log)
        do throws(DriverFailure) {
            let result = try await connection.call(.initialize(params), timeout: configuration.stepTimeout, as: InitializeResult.self)
            guard result.protocolVersion == DriverProtocol.version else {
                throw DriverFailure.badResult(method: "initialize", detail: "the driver speaks protocol version \(result.protocolVersion); "
                                              + "this version of matrix speaks \(DriverProtocol.version)")
            }
            let unknown = result.actions.filter { Action(rawValue: $0) == nil }
            guard unknown.isEmpty else {
                throw DriverFailure.badResult(method: "initialize", detail: "the driver announces actions matrix does not know: "
                                              + unknown.map { "\"\($0)\"" }.joined(separator: ", ")
                                              + "; the actions are " + Action.allCases.map(\.rawValue).joined(separator: ", "))
            }
            let unknownCalls = (result.failableCalls ?? []).filter { StoreKitCall(rawValue: $0) == nil }
            guard unknownCalls.isEmpty else {
                throw DriverFailure.badResult(method: "initialize", detail: "the driver announces failableCalls matrix does not know: "
                                              + unknownCalls.map { "\"\($0)\"" }.joined(separator: ", ")
                                              + "; they are " + StoreKitCall.allCases.map(\.rawValue).joined(separator: ", "))
            }
            guard result.hasValidEnvironmentName else {
                throw DriverFailure.badResult(method: "initialize", detail: "the environment name \"\(result.environment)\" must be 1 to 64 "
                                              + "ASCII letters, digits, '.', '_' or '-', starting with a letter or digit")
            }
            // `local` is the reference in evidence: verify holds a local run to its rules (everything signed), and
            // compare judges other environments against it. Every other built-in name means something a driver
            // cannot show either: a `server` run's exchange with a backend the runner started, an `app` run of the
            // team's code in this process, a person's answers: a driver names its own.
            switch EnvironmentKind(result.environment) {
            case .driver:
                break
            case .local:
                throw DriverFailure.badResult(method: "initialize", detail: "the environment name \"\(result.environment)\" is the embedded "
                                              + "reference environment's; a driver names its own (e.g. \"\(EnvironmentKind.localDriverName)\")")
            case let builtIn:
                throw DriverFailure.badResult(method: "initialize", detail: "the environment name \"\(result.environment)\" is the built-in "
                                              + "\(builtIn.name) environment's; a driver names its own (e.g. \"\(builtIn.name)-driver\")")
            }
            return (connection, result)
        } catch {
            await connection.shutdown(timeout: .seconds(1))
            throw error
        }
    }

    /// Checks a driver out (a fresh one if the last one broke) and sends `reset`.
    ///
    /// - Throws: ``AdapterError`` when no driver can be started or `reset` fails; `CancellationError` on Ctrl-C.
    public func startCase(_ matrixCase: MatrixCase, of matrix: Matrix) async throws -> any CaseSession {
        let connection = try await pool.checkOut()
        let answer: ResetAnswer
        do {
            answer = try await connection.call(.reset(ResetParams(matrix: matrix, case: matrixCase)), timeout: configuration.stepTimeout,
                                               as: ResetAnswer.self)
        } catch .cancelled {
            await pool.checkIn(connection)
            throw CancellationError()
        } catch {
            await pool.checkIn(connection)
            throw AdapterError(error.message)
        }
        return ExecCaseSession(adapter: self, connection: connection, matrixCase: matrixCase, unsupported: answer.unsupported)
    }

    /// `reset`'s result: `{}`, or `{"unsupported": "reason"}` when the environment cannot run the case at all.
    struct ResetAnswer: Decodable {
        var unsupported: String?
    }

    /// Shuts every driver down: `shutdown`, end of input, then signals. Call once, when the run ends.
    public func shutdown() async {
        await pool.shutdown()
    }
}

/// One case on one driver.
final class ExecCaseSession: CaseSession {
    let adapter: ExecAdapter
    let connection: DriverConnection
    let matrixCase: MatrixCase
    /// Why the driver cannot run this case, when `reset` said so: every step is skipped.
    let unsupported: String?
    private var closed = false

    init(adapter: ExecAdapter, connection: DriverConnection, matrixCase: MatrixCase, unsupported: String?) {
        self.adapter = adapter
        self.unsupported = unsupported
        self.connection = connection
        self.matrixCase = matrixCase
    }

    func perform(_ step: Step, index: Int) async throws -> StepOutcome {
        let environment = adapter.description.name
        if let unsupported {
            return .skipped(reason: "the \(environment) driver cannot run this case: \(unsupported)")
        }
        guard adapter.supportedActions.contains(step.action.rawValue) else {
            return .skipped(reason: "the \(environment) driver does not support \(step.action.rawValue)")
        }
        if let failNext = step.failNext, !adapter.failableCalls.contains(failNext.call.rawValue) {
            let announced = adapter.failableCalls.isEmpty ? "announces no failableCalls"
                : "announces failableCalls " + adapter.failableCalls.sorted().joined(separator: ", ")
            return .skipped(reason: "the \(environment) driver cannot make \(failNext.call.callName) fail (failNext): it \(announced)")
        }
        let params = PerformParams(case: matrixCase.id, index: index, account: step.account ?? matrixCase.account, step: step)
        do {
            switch try await connection.call(.perform(params), timeout: adapter.configuration.stepTimeout, as: PerformResult.self) {
            case .observed(let observation, let modelled):
                return .observed(observation, modelledWallTimeMs: modelled)
            case .unsupported(let reason):
                return .skipped(reason: "the \(environment) driver does not support \(step.action.rawValue): \(reason)")
            }
        } catch .cancelled {
            throw CancellationError()
        } catch {
            throw AdapterError(error.message)
        }
    }

    func close() async {
        guard !closed else { return }
        closed = true
        await adapter.pool.checkIn(connection)
    }
}
