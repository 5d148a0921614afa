/// How a step went.
public enum Verdict: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    /// Everything expected was observed.
    case pass
    /// Something observed differs from what was expected.
    case fail
    /// The environment could not perform the step or observe its outcome.
    case error
    /// The environment does not support the step; the reason says why.
    case skipped
    /// An earlier step of the case failed or errored, so this one was not performed.
    case blocked

    /// Severity order for summarising a case: fail and error outrank blocked, skipped and pass.
    private var rank: Int {
        switch self {
        case .error: 0
        case .fail: 1
        case .blocked: 2
        case .skipped: 3
        case .pass: 4
        }
    }

    public static func < (lhs: Verdict, rhs: Verdict) -> Bool { lhs.rank < rhs.rank }

    /// The verdict of a whole case: its worst step verdict (`pass` for no steps).
    public static func summarise(_ verdicts: some Sequence<Verdict>) -> Verdict {
        verdicts.min() ?? .pass
    }
}

/// The account a record's step acted on: its alias and described state, never a real e-mail address.
public struct AccountRef: Sendable, Hashable, Codable {
    public var alias: String
    public var state: String
    /// A salted SHA-256 of the real account identifier, in guided runs.
    public var hash: String?

    public init(alias: String, state: String, hash: String? = nil) {
        self.alias = alias
        self.state = state
        self.hash = hash
    }
}

/// One step's evidence: what was expected, what was observed, and the verdict, with the run's metadata.
///
/// One JSON object per line of `evidence.jsonl`, appended and flushed as each step ends. Copies share one
/// immutable storage: a record goes from the runner to the writer and to every report, and copying two dozen
/// fields retained each of their strings every time; setting a field makes the record storage of its own.
public struct EvidenceRecord: Sendable, Hashable, Codable {
    /// The fields, as encoded (their names are the JSON keys).
    private struct Fields: Sendable, Hashable, Codable {
        var run: String
        var seq: Int
        var environment: String
        var build: String
        var device: String
        var os: String
        var account: AccountRef
        var `case`: String
        var kind: String
        var step: Int
        var action: Step
        var product: String?
        var expected: Expectation?
        var observed: Observation?
        var verdict: Verdict
        var reason: String?
        var environmentLimit: String?
        var wallStart: String
        var wallEnd: String
        var storeTime: Int64?
        var modelledWallTimeMs: Int64?
        var clock: String?
        var appFault: String?
    }

    /// Shared by copies; never changed once made.
    private final class Storage: Sendable {
        let fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private var storage: Storage

    /// Sets one field, in storage of this record's own.
    private mutating func set<Value>(_ field: WritableKeyPath<Fields, Value>, _ value: Value) {
        var fields = storage.fields
        fields[keyPath: field] = value
        storage = Storage(fields)
    }

    /// The run's identifier.
    public var run: String {
        get { storage.fields.run }
        set { set(\.run, newValue) }
    }
    /// 1-based position in the run's evidence, in matrix order.
    public var seq: Int {
        get { storage.fields.seq }
        set { set(\.seq, newValue) }
    }
    public var environment: String {
        get { storage.fields.environment }
        set { set(\.environment, newValue) }
    }
    public var build: String {
        get { storage.fields.build }
        set { set(\.build, newValue) }
    }
    public var device: String {
        get { storage.fields.device }
        set { set(\.device, newValue) }
    }
    public var os: String {
        get { storage.fields.os }
        set { set(\.os, newValue) }
    }
    public var account: AccountRef {
        get { storage.fields.account }
        set { set(\.account, newValue) }
    }
    /// The case's `id`.
    public var `case`: String {
        get { storage.fields.`case` }
        set { set(\.`case`, newValue) }
    }
    public var kind: String {
        get { storage.fields.kind }
        set { set(\.kind, newValue) }
    }
    /// 0-based index of the step in its case.
    public var step: Int {
        get { storage.fields.step }
        set { set(\.step, newValue) }
    }
    /// The step as written in the matrix, expectation excluded.
    public var action: Step {
        get { storage.fields.action }
        set { set(\.action, newValue) }
    }
    /// The step's product, when it has one (duplicated from `action` for easy filtering).
    public var product: String? {
        get { storage.fields.product }
        set { set(\.product, newValue) }
    }
    public var expected: Expectation? {
        get { storage.fields.expected }
        set { set(\.expected, newValue) }
    }
    /// `nil` when nothing was observed (`blocked`, `skipped`, or an `error` before observing).
    public var observed: Observation? {
        get { storage.fields.observed }
        set { set(\.observed, newValue) }
    }
    public var verdict: Verdict {
        get { storage.fields.verdict }
        set { set(\.verdict, newValue) }
    }
    /// Why the verdict is not `pass`: the differences, the error, or the skip reason.
    public var reason: String? {
        get { storage.fields.reason }
        set { set(\.reason, newValue) }
    }
    /// For a step skipped because the environment cannot perform it, and for the rest of its case: the
    /// documented limit, a ``GuidedLimit`` raw value (`askToBuyAnswer`, `renewalLimit`, …), kept as written so that
    /// a value a later version adds survives a round trip. `matrix compare` explains such skips with it.
    public var environmentLimit: String? {
        get { storage.fields.environmentLimit }
        set { set(\.environmentLimit, newValue) }
    }
    /// Wall-clock start and end, ISO 8601 with milliseconds, UTC.
    public var wallStart: String {
        get { storage.fields.wallStart }
        set { set(\.wallStart, newValue) }
    }
    public var wallEnd: String {
        get { storage.fields.wallEnd }
        set { set(\.wallEnd, newValue) }
    }
    /// The store's clock after the step, ms since 1970.
    public var storeTime: Int64? {
        get { storage.fields.storeTime }
        set { set(\.storeTime, newValue) }
    }
    /// How long the step would take in wall time in the environment the run models, ms.
    public var modelledWallTimeMs: Int64? {
        get { storage.fields.modelledWallTimeMs }
        set { set(\.modelledWallTimeMs, newValue) }
    }
    /// The clock the case ran on (`real`, `xcode:13`, `sandbox:5`, `testflight`), when the environment models one.
    public var clock: String? {
        get { storage.fields.clock }
        set { set(\.clock, newValue) }
    }
    /// The known bug the reference app ran with (`--app-fault`): this evidence is of a deliberately faulty app.
    public var appFault: String? {
        get { storage.fields.appFault }
        set { set(\.appFault, newValue) }
    }

    public init(run: String, seq: Int, environment: String, build: String, device: String, os: String, account: AccountRef,
                case caseID: String, kind: String, step: Int, action: Step, product: String?, expected: Expectation?,
                observed: Observation?, verdict: Verdict, reason: String?, wallStart: String, wallEnd: String,
                storeTime: Int64?, modelledWallTimeMs: Int64? = nil, clock: String? = nil, appFault: String? = nil,
                environmentLimit: String? = nil) {
        storage = Storage(Fields(run: run, seq: seq, environment: environment, build: build, device: device, os: os,
                                 account: account, case: caseID, kind: kind, step: step, action: action, product: product,
                                 expected: expected, observed: observed, verdict: verdict, reason: reason,
                                 environmentLimit: environmentLimit, wallStart: wallStart, wallEnd: wallEnd,
                                 storeTime: storeTime, modelledWallTimeMs: modelledWallTimeMs, clock: clock,
                                 appFault: appFault))
    }

    public init(from decoder: any Decoder) throws {
        storage = Storage(try Fields(from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        try storage.fields.encode(to: encoder)
    }

    public static func == (lhs: EvidenceRecord, rhs: EvidenceRecord) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.fields == rhs.storage.fields
    }

    public func hash(into hasher: inout Hasher) {
        storage.fields.hash(into: &hasher)
    }
}

extension EvidenceRecord: CustomReflectable {
    /// The fields, as if the record stored them itself (what `dump` and `Mirror` show).
    public var customMirror: Mirror { Mirror(reflecting: storage.fields) }
}

extension EvidenceRecord {
    /// Whether the step passed with an expectation none of whose fields the environment observed (a guided
    /// run's `balance`, say): nothing was judged, though the verdict is `pass`.
    public var passedWithNothingObserved: Bool {
        // Asked of every record the runner writes: what most records lack is checked first.
        guard verdict == .pass, let unobserved = observed?.notObserved, !unobserved.isEmpty,
              let fields = expected?.fieldNames, !fields.isEmpty else { return false }
        return fields.allSatisfy(unobserved.contains)
    }
}
