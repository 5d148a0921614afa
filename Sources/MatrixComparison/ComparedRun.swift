import MatrixModel

/// One run as `matrix compare` takes it: where it ran, which matrix it ran, and its evidence.
///
/// Built from a run directory's `run.json` and `evidence.jsonl` by the caller; the comparison itself reads no
/// files.
public struct ComparedRun: Sendable, Hashable {
    /// Where the run came from, as the user named it (a run directory path).
    public var path: String
    /// The run's identifier.
    public var runId: String
    /// `local`, `exec`, `sandbox`, `testflight`, `xcode`, … as the run recorded it.
    public var environment: String
    /// The build as given, e.g. `1.4 (212)`.
    public var build: String
    /// The schedule the run modelled (`real`, `sandbox:5`, `testflight`, …), when it recorded one; a record's own
    /// `clock` takes precedence for its step.
    public var clock: String?
    /// The matrix's `name`.
    public var matrixName: String
    /// SHA-256 of the matrix file's bytes, lower-case hex: runs with different digests ran different matrices.
    public var matrixSHA256: String
    /// `complete`, `interrupted` or `running`, as the manifest says; anything but `complete` is warned about.
    public var status: String
    /// The run's evidence records, in any order.
    public var records: [EvidenceRecord]
    /// The selection the run took (`--case`, `--kind`, `--tag`, `--profile`), in words; `nil` when it took
    /// every case.
    public var selection: String?
    /// The ids of the cases the run selected; `nil` when it took every case. A case it did not select is not
    /// missing from it: it is compared among the other runs.
    public var selectedCases: Set<String>?

    /// A run with its metadata and evidence.
    public init(path: String, runId: String, environment: String, build: String, clock: String? = nil, matrixName: String,
                matrixSHA256: String, status: String = "complete", records: [EvidenceRecord], selection: String? = nil,
                selectedCases: Set<String>? = nil) {
        self.path = path
        self.runId = runId
        self.environment = environment
        self.build = build
        self.clock = clock
        self.matrixName = matrixName
        self.matrixSHA256 = matrixSHA256
        self.status = status
        self.records = records
        self.selection = selection
        self.selectedCases = selectedCases
    }
}
