import DriverKit
import EvidenceStore
import Foundation
import LocalEnvironment
import MatrixEngine
import MatrixJSON
import MatrixModel
import SimulatedStoreKit

/// Runs a matrix against a team's own StoreKit code, in-process, on the embedded App Store: the `app`
/// environment.
///
/// The app is an ``AppUnderTest`` the team writes around its Store class, compiled against SimulatedStoreKit
/// instead of StoreKit. ``run(matrix:options:app:)`` runs from the team's tests (Swift Testing or XCTest) and
/// writes the standard run directory; ``serveDriver(options:app:)`` serves the same harness over the driver
/// protocol, so `matrix run MATRIX --env exec --driver "swift run my-store-driver"` gets every command-line
/// feature (compare, shards, resume).
public enum AppHarness {
    /// How a harness run is set up.
    public struct Options: Sendable {
        /// Where run directories go (`<reportsDirectory>/app/<build>/<run-id>/`), relative to the working
        /// directory; `nil` keeps the evidence in memory only.
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
        /// How long the app may take to handle the updates of one step.
        public var settleLimit: Duration
        /// Whether the store signs its data (`jwsRepresentation`, the evidence's `signedData`); without it a run
        /// is faster and `jwsRepresentation` is unsigned (`alg: none`).
        public var signing: Bool

        public init(reportsDirectory: String? = "reports", clock: String? = nil, signedEnvironment: SignedEnvironment = .sandbox,
                    jobs: Int = 1, build: String = "unspecified (app under test)", settleLimit: Duration = .seconds(10),
                    signing: Bool = true) {
            self.reportsDirectory = reportsDirectory
            self.clock = clock
            self.signedEnvironment = signedEnvironment
            self.jobs = jobs
            self.build = build
            self.settleLimit = settleLimit
            self.signing = signing
        }
    }

    /// Runs every case of the matrix at `path` against the app `app` makes (one object per installation).
    ///
    /// - Returns: the run's outcome, with every step that did not pass located in the matrix file.
    /// - Throws: ``AppHarnessError`` when the matrix cannot be read or loaded (its diagnostics in the message),
    ///   the clock is not a clock, or the evidence cannot be written.
    public static func run(matrix path: String, options: Options = Options(),
                           app: @escaping @Sendable () -> any AppUnderTest) async throws -> AppHarnessResult {
        let file: MatrixFile
        do {
            file = try MatrixFile.read(path)
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
        let adapter = try LocalAdapter(schedule: schedule, signedEnvironment: options.signedEnvironment, signing: options.signing,
                                       environment: .app, app: app, settleLimit: options.settleLimit)
        let runID = RunDirectory.makeRunID()
        let context = RunContext(runID: runID, environment: EnvironmentKind.app.name, build: options.build,
                                 device: adapter.description.device ?? "embedded simulator", os: adapter.description.os ?? "n/a")
        let runner = Runner(matrix: matrix, adapter: adapter, context: context, jobs: options.jobs)
        let locator = StepLocator(bytes: file.bytes, file: path)
        guard let reportsDirectory = options.reportsDirectory else {
            let sink = KeptRecords()
            let summary = try await runner.run(into: sink)
            return AppHarnessResult(summary: summary, records: await sink.records, runDirectory: nil, locator: locator)
        }
        var manifest = RunManifest(toolVersion: ToolVersion.current, context: context,
                                   matrix: MatrixReference(path: path, contents: Data(file.bytes), name: matrix.name, catalog: file.catalogBytes),
                                   clock: schedule.description, accounts: RunManifest.accounts(of: matrix), startedAt: Date())
        do {
            var written = manifest
            let directory = try RunDirectory.create(root: URL(fileURLWithPath: reportsDirectory), environment: context.environment,
                                                    build: options.build, runID: runID) { staging in
                try staging.createEmptyEvidence()
                written = try staging.writeManifest(manifest)
            }
            manifest = written
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

    /// Serves the harness over the driver protocol on standard input and output, until `shutdown` or the end
    /// of input: a driver executable for `matrix run MATRIX --env exec --driver "…"`.
    ///
    /// - Returns: the exit status for `main`: 0 after shutdown or the end of input, 74 when responses cannot be
    ///   written.
    public static func serveDriver(options: Options = Options(), app: @escaping @Sendable () -> any AppUnderTest) async -> Int32 {
        let driver = LocalDriver(signedEnvironment: options.signedEnvironment, signing: options.signing, clock: options.clock,
                                 version: ToolVersion.current, environment: EnvironmentKind.app.name, app: app,
                                 settleLimit: options.settleLimit)
        switch await DriverServer.serveStandardIO(driver) {
        case .shutdown, .endOfInput: return 0
        case .outputFailed: return 74
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

        /// `file:line:column: case #step action: verdict: reason`.
        public var description: String {
            "\(file):\(line):\(column): \(caseID) #\(step) \(action): \(verdict): \(reason)"
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
        var lines = ["\(records.count) steps: \(steps)" + (runDirectory.map { " · evidence: \($0.path)" } ?? "")]
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
