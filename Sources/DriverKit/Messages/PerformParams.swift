import MatrixModel

/// The params of `perform`: one step of the current case.
public struct PerformParams: Sendable, Hashable, Codable {
    /// The current case's `id`.
    public var `case`: String
    /// 0-based index of the step in its case.
    public var index: Int
    /// The alias of the account that acts: the step's `account`, else the case's.
    public var account: String
    /// The step as the matrix writes it (`action` and its parameters), without `expect`: the runner judges,
    /// the driver only performs and observes.
    public var step: Step

    /// The params for step `index` of case `caseID`; the step's expectation is removed.
    public init(case caseID: String, index: Int, account: String, step: Step) {
        self.case = caseID
        self.index = index
        self.account = account
        var withoutExpectation = step
        withoutExpectation.expect = nil
        self.step = withoutExpectation
    }
}

/// The result of `perform`: what was observed, or why the environment cannot perform the step.
///
/// On the wire: `{"status": "observed", "observation": {…}, "modelledWallTimeMs": 0}` or
/// `{"status": "unsupported", "reason": "…"}`.
public enum PerformResult: Sendable, Hashable, Codable {
    /// The step was performed; `observation` is what the app and the store show now. `modelledWallTimeMs` is
    /// how long the step takes in real time in the environment the run models, when known (ms).
    case observed(Observation, modelledWallTimeMs: Int64? = nil)
    /// The environment cannot perform this step; the step is recorded `skipped` with `reason`.
    case unsupported(reason: String)

    private enum CodingKeys: String, CodingKey {
        case status, observation, modelledWallTimeMs, reason
    }

    /// Reads the wire form. - Throws: `DecodingError` for a missing or unknown `status`, or a bad observation.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let status = try container.decode(String.self, forKey: .status)
        switch status {
        case "observed":
            var observation = try container.decode(Observation.self, forKey: .observation)
            // Left out, serverNotifications is not observed (docs/driver-protocol.md), as displayPrice and
            // introductoryOffer left out are (``Observation``'s decoding, which evidence shares and whose nil
            // serverNotifications it leaves out): named so, a step that expected only it passes as not judged.
            if observation.serverNotifications == nil, observation.notObserved?.contains("serverNotifications") != true {
                observation.notObserved = (observation.notObserved ?? []) + ["serverNotifications"]
            }
            self = .observed(observation, modelledWallTimeMs: try container.decodeIfPresent(Int64.self, forKey: .modelledWallTimeMs))
        case "unsupported":
            self = .unsupported(reason: try container.decodeIfPresent(String.self, forKey: .reason) ?? "not supported by the driver")
        default:
            throw DecodingError.dataCorruptedError(forKey: .status, in: container,
                                                   debugDescription: "status must be \"observed\" or \"unsupported\", not \"\(status)\"")
        }
    }

    /// Writes the wire form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .observed(let observation, let modelled):
            try container.encode("observed", forKey: .status)
            try container.encode(observation, forKey: .observation)
            try container.encodeIfPresent(modelled, forKey: .modelledWallTimeMs)
        case .unsupported(let reason):
            try container.encode("unsupported", forKey: .status)
            try container.encode(reason, forKey: .reason)
        }
    }
}

/// The params of the `progress` notification: the driver is still working on request `id`.
///
/// The runner's deadline for that request moves to `waitMs` from now (the step timeout from now when
/// `waitMs` is missing), so a driver that waits for a Sandbox renewal announces how long it needs.
public struct ProgressParams: Sendable, Hashable, Codable {
    /// The request being worked on.
    public var id: Int
    /// How much longer to wait from now, ms.
    public var waitMs: Int64?
    /// What the driver is doing, for people (`--verbose` shows it).
    public var message: String?

    /// A notice for request `id`: wait `waitMs` more (ms), doing `message`.
    public init(id: Int, waitMs: Int64? = nil, message: String? = nil) {
        self.id = id
        self.waitMs = waitMs
        self.message = message
    }
}
