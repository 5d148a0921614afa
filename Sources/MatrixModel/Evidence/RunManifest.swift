import Foundation
import MatrixJSON

/// A run's manifest, `run.json`: what ran, where, when, how it went, and the SHA-256 of every other file of
/// the run directory.
///
/// Written when the run starts and again when it ends, each time atomically. Until the final manifest is written
/// the status is `interrupted`, so a run killed at any moment (even with SIGKILL) says so. Versioned by
/// `manifestVersion`; readers refuse versions they do not know.
public struct RunManifest: Sendable, Hashable, Codable {
    /// The `manifestVersion` this version writes and reads.
    public static let currentVersion = 1

    /// The manifest format's version, ``currentVersion`` when written by this version.
    public var manifestVersion: Int
    /// The version of `matrix` that wrote the run.
    public var toolVersion: String
    /// The run's identifier, also the run directory's name.
    public var runId: String
    /// `interrupted` from the start until the final manifest is written, then `complete` or `interrupted`.
    public var status: RunStatus
    /// The matrix file that ran.
    public var matrix: MatrixReference
    /// `local`, `exec`, `sandbox`, `testflight`, …
    public var environment: String
    /// The build as given, e.g. `1.4 (212)`.
    public var build: String
    /// The device as given, e.g. `iPhone 16`.
    public var device: String
    /// The operating system as given, e.g. `iOS 26.1`.
    public var os: String
    /// The schedule the run models, e.g. `real`, `sandbox:5`, `xcode:4`.
    public var clock: String?
    /// The app fault the reference app ran with (`--app-fault`), if any.
    public var appFault: String?
    /// The `environment` written into signed data (`--signed-environment`), for runs that sign.
    public var signedEnvironment: String?
    /// The external driver's command line, executable first (`--env exec --driver`), so that `--resume` starts
    /// it again.
    public var driver: [String]?
    /// The backend's command line, executable first (`--env server --server`), so that the evidence says which
    /// backend answered; recorded, never run again (a server run is not resumed).
    public var server: [String]?
    /// `K/N` when the run is one shard of a matrix (`--shard`); its cases are ``shardCases``.
    public var shard: String?
    /// The ids of the cases this shard runs, in matrix order (of the selected cases, when the run selects).
    public var shardCases: [String]?
    /// The selection the run took (`--case`, `--kind`, `--tag`, `--profile`), when it did not take every case; its
    /// cases are ``selectedCases``.
    public var selection: CaseSelection?
    /// The ids of the cases the selection took, in matrix order: the cases a complete run holds (a shard's
    /// slice of them is ``shardCases``).
    public var selectedCases: [String]?
    /// The matrix's warnings when the run started (an unknown key, an unusual case kind), compiler-style.
    public var warnings: [String]?
    /// Guided runs: how the tester's observations were obtained (`interactive`, or an answers file).
    public var guidance: String?
    /// The run ids of the slices `matrix merge` made this run of.
    public var mergedFrom: [String]?
    /// The salt of the accounts' hashes (``accountHash(identifier:salt:)``), so that someone who knows an
    /// account's identifier can check it; the identifiers themselves are never stored.
    public var accountSalt: String?
    /// Every account of the matrix: alias, described state, and in guided runs a salted SHA-256 of the real
    /// identifier (never the identifier itself).
    public var accounts: [AccountRef]
    /// ISO 8601 with milliseconds, UTC.
    public var startedAt: String
    /// ISO 8601 with milliseconds, UTC; absent while the run is `running`.
    public var endedAt: String?
    /// An interrupted run's cases that started and did not end (their records are the first of their steps):
    /// the reports label them INTERRUPTED, and ``counts`` leaves them out of the cases (not their steps).
    public var unfinishedCases: [String]?

    /// ``unfinishedCases`` as a set (empty when there are none), as the reports look them up.
    public var unfinished: Set<String> { Set(unfinishedCases ?? []) }
    /// Cases and steps by verdict, counted from the evidence.
    public var counts: RunCounts
    /// SHA-256 (lower-case hex) of every other file of the run directory, by path relative to it.
    public var files: [String: String]

    /// A manifest for a run that is starting: status `interrupted` (until it ends), no end, zero counts, no files yet.
    ///
    /// - Parameters:
    ///   - toolVersion: the `matrix` version, injected by the caller.
    ///   - context: the run's id, environment, build, device and OS.
    ///   - matrix: the matrix file's path, digest and name; see ``MatrixReference/init(path:contents:name:)``.
    ///   - clock: the schedule the run models.
    ///   - accounts: see ``accounts(of:)``.
    ///   - startedAt: the wall-clock start, from the caller's clock.
    public init(toolVersion: String, context: RunContext, matrix: MatrixReference, clock: String?, accounts: [AccountRef],
                startedAt: Date) {
        self.manifestVersion = Self.currentVersion
        self.toolVersion = toolVersion
        self.runId = context.runID
        self.status = .interrupted
        self.matrix = matrix
        self.environment = context.environment
        self.build = context.build
        self.device = context.device
        self.os = context.os
        self.clock = clock
        self.accounts = accounts
        self.startedAt = Timestamp.iso8601(startedAt)
        self.endedAt = nil
        self.counts = RunCounts()
        self.files = [:]
    }

    /// The ids of the cases this run runs, in matrix order: its shard's, else its selection's, else every case of
    /// `matrix`.
    public func caseIDs(of matrix: Matrix) -> [String] {
        shardCases ?? selectedCases ?? matrix.cases.map(\.id)
    }

    /// Whether the run has not ended: no `endedAt` (the final manifest was never written), or the `running`
    /// status older versions wrote while a run was in progress.
    public var hasNotEnded: Bool { endedAt == nil || status == .running }

    /// What in run.json shows that the run has not ended, for messages: `run.json has no endedAt` or
    /// `run.json's status is running`; `nil` when it has ended.
    public var notEndedEvidence: String? {
        endedAt == nil ? "run.json has no endedAt" : status == .running ? "run.json's status is running" : nil
    }

    /// The accounts of `matrix` as a manifest lists them: alias and described state, no hash.
    public static func accounts(of matrix: Matrix) -> [AccountRef] {
        matrix.accounts.map { AccountRef(alias: $0.alias, state: $0.stateDescription) }
    }
}

/// Where a run is in its life.
public enum RunStatus: String, Sendable, Hashable, Codable, CaseIterable {
    /// Written by earlier versions while a run was in progress; read as interrupted.
    case running
    /// Every case ran to its end.
    case complete
    /// The run stopped early (Ctrl-C, a signal, a write error); the evidence written so far is kept.
    case interrupted
}

/// The matrix a run ran: its path as given, the SHA-256 of its bytes, its name.
public struct MatrixReference: Sendable, Hashable, Codable {
    /// The path as given on the command line.
    public var path: String
    /// SHA-256 of the file's bytes, lower-case hex.
    public var sha256: String
    /// The matrix's `name`.
    public var name: String
    /// SHA-256 of the `.storekit` catalog file the matrix names, when it names one: a resumed run must use the
    /// same products.
    public var catalogSHA256: String?

    /// A reference with a digest computed elsewhere.
    public init(path: String, sha256: String, name: String) {
        self.path = path
        self.sha256 = sha256
        self.name = name
    }
}
