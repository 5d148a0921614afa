import EvidenceStore
import HarnessCore
import Foundation
import MatrixEngine
import MatrixJSON
import MatrixModel

/// How a harness run is set up.
public struct HarnessOptions: Sendable {
    /// Where run directories go (`<reportsDirectory>/<environment>/<build>/<run-id>/`: `app` on the embedded App
    /// Store, `xcode` under StoreKit Testing), relative to the working directory; `nil` keeps the evidence in
    /// memory only.
    public var reportsDirectory: String?
    /// The clock the store models (`real`, `xcode:<timeRate>`, `sandbox:<rate>`, `testflight`); `nil` for the
    /// matrix's or `real`.
    public var clock: String?
    /// The `environment` written into signed data.
    public var signedEnvironment: SignedEnvironment
    /// Cases run at once. Apps whose `Transaction.updates` listener is a `Task.detached` need 1 (see
    /// `StoreKitSession`).
    public var jobs: Int
    /// The build the evidence names.
    public var build: String
    /// How long the app may take to handle the updates of one step (on the embedded App Store, the limit of
    /// waiting for its listeners; under StoreKit Testing, of polling until its answer is stable).
    public var settleLimit: Duration
    /// How long one call into the app (launch, quit, purchase, restore) may take before the step errors: a safety
    /// net for a call that never returns. The calls that observe a step (what it grants, balances, displayed
    /// prices) share one such limit, as do the quit and launch of a relaunch.
    public var callLimit: Duration
    /// Whether the store signs its data (`jwsRepresentation`, the evidence's `signedData`); without it a run
    /// is faster and `jwsRepresentation` is unsigned (`alg: none`).
    public var signing: Bool

    public init(reportsDirectory: String? = "reports", clock: String? = nil, signedEnvironment: SignedEnvironment = .sandbox,
                jobs: Int = 1, build: String = "unspecified", settleLimit: Duration = .seconds(10),
                signing: Bool = true, callLimit: Duration = .seconds(60)) {
        self.reportsDirectory = reportsDirectory
        self.clock = clock
        self.signedEnvironment = signedEnvironment
        self.jobs = jobs
        self.build = build
        self.settleLimit = settleLimit
        self.callLimit = callLimit
        self.signing = signing
    }
}

/// Runs matrices against an app and writes the standard run directory: what the app harness (the embedded App
/// Store) and the Xcode harness (StoreKit Testing) share.
public enum HarnessRun {
    /// Runs every case of the matrix at `path` on the environment `environment` makes for the matrix and the
    /// clock the options name, and writes the run directory when the options name a reports directory.
    ///
    /// - Parameter catalogBesideMatrix: look for a catalog not found at its path by its file name beside the
    ///   matrix, as a test bundle holds both (Xcode copies resources flat).
    /// - Returns: the run's outcome, with every step that did not pass located in the matrix file.
    /// - Throws: ``AppHarnessError`` when the matrix cannot be read or loaded (its diagnostics in the message),
    ///   the clock is not a clock, the environment cannot start, or the evidence cannot be written.
    public static func run(matrix path: String, options: HarnessOptions, catalogBesideMatrix: Bool = false,
                           environment: (Matrix, RenewalSchedule) throws -> any EnvironmentAdapter) async throws -> AppHarnessResult {
        let file: MatrixFile
        do {
            file = try MatrixFile.read(path, catalogBesideMatrix: catalogBesideMatrix)
        } catch {
            throw AppHarnessError("cannot read matrix \(path): \(error.reason)")
        }
        guard let matrix = file.matrix else {
            let problems = file.diagnostics.filter { $0.severity == .error }.map(\.rendered)
            throw AppHarnessError("\(path) does not load:\n" + problems.joined(separator: "\n"))
        }
        var schedule = RenewalSchedule.real
        if let clock = options.clock {
            switch RenewalSchedule.parse(clock, storeKitTimeRate: matrix.catalog.settings.timeRate) {
            case .success(let parsed): schedule = parsed
            case .failure(let problem): throw AppHarnessError("clock \(clock): \(problem.message)")
            }
        }
        let adapter: any EnvironmentAdapter
        do {
            adapter = try environment(matrix, schedule)
        } catch {
            throw AppHarnessError("the environment cannot start: \(error)")
        }
        let runID = RunDirectory.makeRunID()
        let context = RunContext(runID: runID, environment: adapter.description.name, build: options.build,
                                 device: adapter.description.device ?? "embedded simulator", os: adapter.description.os ?? "n/a")
        let locator = StepLocator(bytes: file.bytes, file: path)
        guard let reportsDirectory = options.reportsDirectory else {
            let runner = Runner(matrix: matrix, adapter: adapter, context: context, jobs: options.jobs)
            let sink = KeptRecords()
            let summary = try await runner.run(into: sink)
            return AppHarnessResult(summary: summary, records: await sink.records, runDirectory: nil, locator: locator)
        }
        var manifest = RunManifest(toolVersion: ToolVersion.current, context: context,
                                   matrix: MatrixReference(path: path, contents: Data(file.bytes), name: matrix.name, catalog: file.catalogBytes),
                                   clock: schedule.description, accounts: RunManifest.accounts(of: matrix), startedAt: Date())
        if options.signing { manifest.signedEnvironment = options.signedEnvironment.rawValue }
        do {
            var written = manifest
            // Another run sharing the reports directory may draw the same id at the same moment: then it draws again.
            let directory = try RunDirectory.createNew(root: URL(fileURLWithPath: reportsDirectory), environment: context.environment,
                                                       build: options.build) { staging, id in
                var identified = manifest
                identified.runId = id
                try staging.createEmptyEvidence()
                written = try staging.writeManifest(identified)
            }
            manifest = written
            var identified = context
            identified.runID = written.runId
            let runner = Runner(matrix: matrix, adapter: adapter, context: identified, jobs: options.jobs)
            let writer = try EvidenceWriter(directory: directory)
            let kept = KeptRecords()
            let summary = try await runner.run(into: TeeSink(writer: writer, kept: kept))
            try await writer.sync()
            manifest.unfinishedCases = summary.interrupted ? summary.unfinishedCase.map { [$0] } : nil
            try await writer.finish(manifest, status: summary.interrupted ? .interrupted : .complete, endedAt: Date())
            return AppHarnessResult(summary: summary, records: await kept.records, runDirectory: directory.url, locator: locator)
        } catch let error as AppHarnessError {
            throw error
        } catch {
            throw AppHarnessError("cannot write the evidence under \(reportsDirectory): \(error)")
        }
    }
}

/// The outcome of a harness run.
public struct AppHarnessResult: Sendable, CustomStringConvertible {
    /// A step that did not pass, where the matrix writes it.
    public struct Failure: Sendable, Hashable, CustomStringConvertible {
        public var caseID: String
        public var step: Int
        public var action: String
        /// `fail`, `error` or `blocked`.
        public var verdict: String
        public var reason: String
        /// The matrix file, and the 1-based line and column where the step starts.
        public var file: String
        public var line: Int
        public var column: Int

        /// `file:line:column: case #step action: verdict: reason`, on one line: the case id comes from the matrix
        /// and the reason from the app under test, so control characters, bidirectional overrides and line breaks
        /// in them are written as `\u{…}` (``TerminalText``) and cannot rewrite a test log shown on a terminal.
        public var description: String {
            TerminalText.visible("\(file):\(line):\(column): \(caseID) #\(step) \(action): \(verdict): \(reason)")
        }

        /// `case #step action: reason`, escaped as ``description`` is: the text of a test issue.
        public var issueText: String {
            TerminalText.visible("\(caseID) #\(step) \(action): \(reason)")
        }
    }

    /// Counts by verdict, and whether the run was interrupted.
    public let summary: RunSummary
    /// Every record, in run order.
    public let records: [EvidenceRecord]
    /// The run directory written, when the options named a reports directory.
    public let runDirectory: URL?
    /// Every step that failed, errored or was blocked, in run order.
    public let failures: [Failure]

    init(summary: RunSummary, records: [EvidenceRecord], runDirectory: URL?, locator: StepLocator) {
        self.summary = summary
        self.records = records
        self.runDirectory = runDirectory
        failures = records.filter { [.fail, .error, .blocked].contains($0.verdict) }.map { record in
            let location = locator.location(case: record.case, step: record.step)
            return Failure(caseID: record.case, step: record.step, action: record.action.action.rawValue, verdict: record.verdict.rawValue,
                           reason: record.reason ?? record.verdict.rawValue, file: locator.file, line: location.line, column: location.column)
        }
    }

    /// Whether every step passed or was skipped, and the run ended.
    public var passed: Bool { failures.isEmpty && !summary.interrupted }

    /// A summary line, then each failure on a line of its own.
    public var description: String {
        let steps = summary.steps.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.value) \($0.key.rawValue)" }.joined(separator: ", ")
        var lines = [TerminalText.visible("\(records.count) steps: \(steps)" + (runDirectory.map { " · evidence: \($0.path)" } ?? ""))]
        lines += failures.map(\.description)
        return lines.joined(separator: "\n")
    }
}

/// Where each step of a matrix file starts, from its JSON Pointer `/cases/<i>/steps/<j>`.
struct StepLocator: Sendable {
    let file: String
    private let cases: [String: (location: SourceLocation, steps: [SourceLocation])]

    init(bytes: [UInt8], file: String) {
        self.file = file
        var cases: [String: (SourceLocation, [SourceLocation])] = [:]
        if case .success(let root) = JSONReader.parse(bytes), let list = root.objectValue?["cases"]?.arrayValue {
            for item in list {
                guard let id = item.objectValue?["id"]?.stringValue else { continue }
                cases[id] = (item.location, item.objectValue?["steps"]?.arrayValue?.map(\.location) ?? [])
            }
        }
        self.cases = cases
    }

    func location(case id: String, step: Int) -> SourceLocation {
        guard let entry = cases[id] else { return .start }
        return entry.steps.indices.contains(step) ? entry.steps[step] : entry.location
    }
}

/// Keeps the records of a run in memory.
actor KeptRecords: EvidenceSink {
    private(set) var records: [EvidenceRecord] = []

    func append(_ record: EvidenceRecord) async throws {
        records.append(record)
    }
}

/// Writes records to the evidence and keeps them for the result.
struct TeeSink: EvidenceSink {
    let writer: EvidenceWriter
    let kept: KeptRecords

    func append(_ record: EvidenceRecord) async throws {
        try await writer.append(record)
        try await kept.append(record)
    }
}
