import Foundation
import Testing
@testable import EvidenceStore
@testable import MatrixEngine
@testable import MatrixModel
@testable import TestSupport

/// The way the command line uses reporters: the core's runner appends to an ``EvidenceWriter``, then the run
/// directory is finished.
@Suite("Runner integration")
struct RunnerIntegrationTests {
    /// Grants `pro` after a purchase; a refund is not noticed (so a refund expectation fails).
    struct StubAdapter: EnvironmentAdapter {
        var description: EnvironmentDescription { EnvironmentDescription(.exec) }

        func startCase(_ matrixCase: MatrixCase, of matrix: Matrix) async throws -> any CaseSession {
            StubSession()
        }
    }

    final class StubSession: CaseSession {
        var access: [String] = []
        var time: Int64 = 1_767_225_600_000

        func perform(_ step: Step, index: Int) async throws -> StepOutcome {
            if step.action == .purchase { access = ["pro"] }
            if step.action == .advanceTime { time += 86_400_000 }
            return .observed(Observation(access: access, storeTime: time), modelledWallTimeMs: nil)
        }

        func close() async {}
    }

    struct FixedClock: WallClock {
        func now() -> Date { SampleRun.wallStart }
    }

    static let matrix = Matrix(
        name: "integration", app: AppInfo(bundleId: "com.example.myapp"), catalog: StoreKitConfiguration(),
        tiers: [Tier(name: "pro", productIDs: ["com.example.myapp.pro"])],
        accounts: [Account(alias: "fresh", description: "no purchases")],
        cases: [
            MatrixCase(id: "fresh-purchase/pro", kind: "fresh-purchase", account: "fresh", steps: [
                Step(action: .launch, expect: Expectation(access: [])),
                Step(action: .purchase, product: "com.example.myapp.pro", expect: Expectation(access: ["pro"])),
            ]),
            MatrixCase(id: "refund/pro", kind: "refund", account: "fresh", steps: [
                Step(action: .purchase, product: "com.example.myapp.pro", expect: Expectation(access: ["pro"])),
                Step(action: .advanceTime, by: ISO8601Duration(days: 1)),
                Step(action: .refund, product: "com.example.myapp.pro", expect: Expectation(access: [])),
                Step(action: .relaunch, expect: Expectation(access: [])),
            ]),
        ])

    @Test("A run written through the evidence writer finishes into matching evidence, reports and manifest")
    func run() async throws {
        let root = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: root) }
        let context = RunContext(runID: "run-1", environment: "exec", build: "local", device: "Simulator", os: "iOS 26.1")
        let directory = try RunDirectory.create(root: root, environment: context.environment, build: context.build,
                                                runID: context.runID)
        let writer = try EvidenceWriter(directory: directory)
        let manifest = RunManifest(toolVersion: "0.1.0-test", context: context,
                                   matrix: MatrixReference(path: "m.json", contents: Data("{}".utf8), name: Self.matrix.name),
                                   clock: "real", accounts: RunManifest.accounts(of: Self.matrix), startedAt: SampleRun.wallStart)
        try directory.writeManifest(manifest)

        let runner = Runner(matrix: Self.matrix, adapter: StubAdapter(), context: context, wallClock: FixedClock())
        let summary = try await runner.run(into: writer)
        await writer.close()
        let final = try directory.finish(manifest, status: summary.interrupted ? .interrupted : .complete,
                                         endedAt: SampleRun.wallEnd)

        #expect(directory.url.path.hasSuffix("/exec/unspecified/run-1"))
        let (records, dropped) = try directory.readEvidence()
        #expect(!dropped)
        #expect(records.map(\.seq) == Array(1...6))
        #expect(records.map(\.verdict) == [.pass, .pass, .pass, .pass, .fail, .blocked])
        #expect(final.status == .complete)
        #expect(final.counts.steps == VerdictCounts(records.map(\.verdict)))
        #expect(final.counts.cases.pass == 1 && final.counts.cases.fail == 1)
        #expect(summary.steps[.fail] == final.counts.steps.fail)

        let junit = try #require(ParsedXML.parse(try Data(contentsOf: directory.url.appendingPathComponent("junit.xml"))))
        #expect(junit.attributes["failures"] == "1")
        #expect(junit.descendants("skipped").first?.attributes["message"] == "blocked: step 2 (refund) failed")
        let html = try String(contentsOf: directory.url.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(html.contains("+1d"))
    }

    /// Keeps the batches a runner appends, to see how records reach the sink.
    actor BatchSink: EvidenceSink {
        var batches: [[EvidenceRecord]] = []

        func append(_ record: EvidenceRecord) async throws {
            batches.append([record])
        }

        func append(_ prepared: PreparedEvidence) async throws {
            batches.append(prepared.records)
        }
    }

    @Test("With several jobs a long case reaches the sink in batches as it runs, and the evidence is the same as with one job")
    func longCaseStreams() async throws {
        var matrix = Self.matrix
        let long = MatrixCase(id: "long", kind: "renewal", account: "fresh",
                              steps: [Step(action: .launch)] + Array(repeating: Step(action: .advanceTime, by: ISO8601Duration(days: 1)), count: 199))
        matrix.cases = [long] + (0..<6).map { index in
            var copy = Self.matrix.cases[index % 2]
            copy.id += "#\(index)"
            return copy
        }
        let context = RunContext(runID: "run-1", environment: "exec", build: "local", device: "Simulator", os: "iOS 26.1")
        let one = BatchSink()
        _ = try await Runner(matrix: matrix, adapter: StubAdapter(), context: context, wallClock: FixedClock(), jobs: 1).run(into: one)
        let several = BatchSink()
        let summary = try await Runner(matrix: matrix, adapter: StubAdapter(), context: context, wallClock: FixedClock(), jobs: 2)
            .run(into: several)
        let batches: [[EvidenceRecord]] = await several.batches
        let records: [EvidenceRecord] = batches.flatMap { $0 }
        let expected: [EvidenceRecord] = await one.batches.flatMap { $0 }
        #expect(records == expected)
        let seqs: [Int] = records.map(\.seq)
        #expect(seqs == Array(1...218))
        let longBatches = batches.filter { $0.first?.case == "long" }
        #expect(longBatches.count >= 4, "200 records in batches of at most 64")
        #expect(longBatches.allSatisfy { $0.count <= 64 && $0.allSatisfy { $0.case == "long" } })
        #expect(summary.cases[.pass] == 4 && summary.cases[.fail] == 3)
    }

    @Test("A resumed run counts the cases its evidence holds whole even when it is stopped before running any", arguments: [1, 3])
    func resumedAndStoppedAtOnce(jobs: Int) async throws {
        let context = RunContext(runID: "run-1", environment: "exec", build: "local", device: "Simulator", os: "iOS 26.1")
        let firstCase = Self.matrix.cases[0]
        let refund = Self.matrix.cases[1]
        // The first case whole, the refund case begun (two of its four steps) when the run stopped before.
        let prior = [firstCase.id: firstCase.steps.indices.map { RecordedStep(step: $0, action: firstCase.steps[$0].action, verdict: .pass) },
                     refund.id: (0..<2).map { RecordedStep(step: $0, action: refund.steps[$0].action, verdict: .pass) }]
        let sink = BatchSink()
        let runner = Runner(matrix: Self.matrix, adapter: StubAdapter(), context: context, wallClock: FixedClock(), jobs: jobs)
        // Cancelled before it starts: as a second Ctrl-C right after resuming.
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await runner.run(into: sink, firstSeq: 4, prior: prior)
        }
        let summary = try await task.value
        #expect(summary.interrupted)
        #expect(summary.cases[.pass] == 1, "the whole case is counted: \(summary.cases)")
        #expect(summary.steps[.pass] == 4)
        #expect(summary.unfinishedCase == refund.id, "the begun case is still unfinished")
        #expect(await sink.batches.flatMap { $0 }.isEmpty)
    }

    /// Stops the run (cancels its task) while performing step 1 of case `stopIn`.
    struct StoppingAdapter: EnvironmentAdapter {
        let stopIn: String
        var description: EnvironmentDescription { EnvironmentDescription(.exec) }

        func startCase(_ matrixCase: MatrixCase, of matrix: Matrix) async throws -> any CaseSession {
            StoppingSession(stops: matrixCase.id == stopIn)
        }
    }

    /// A ``StubSession`` that stops the run while performing step 1 when `stops`.
    final class StoppingSession: CaseSession {
        let stops: Bool
        let stub = StubSession()
        init(stops: Bool) { self.stops = stops }

        func perform(_ step: Step, index: Int) async throws -> StepOutcome {
            if stops && index == 1 { withUnsafeCurrentTask { $0?.cancel() } }
            return try await stub.perform(step, index: index)
        }

        func close() async {}
    }

    @Test("A run stopped during a case names it as unfinished; a case with no step recorded is not", arguments: [1, 2])
    func unfinishedCase(jobs: Int) async throws {
        let context = RunContext(runID: "run-1", environment: "exec", build: "local", device: "Simulator", os: "iOS 26.1")
        // The refund case (four steps) is stopped while performing its step 1, after the first case ended.
        let runner = Runner(matrix: Self.matrix, adapter: StoppingAdapter(stopIn: "refund/pro"), context: context,
                            wallClock: FixedClock(), jobs: jobs)
        let sink = BatchSink()
        let summary = try await runner.run(into: sink)
        #expect(summary.interrupted)
        #expect(summary.unfinishedCase == "refund/pro", "\(summary)")
        #expect(summary.cases == [.pass: 1], "only the case that ended is counted: \(summary.cases)")
        let written = await sink.batches.flatMap { $0 }
        #expect(written.filter { $0.case == "refund/pro" }.count < 4)

        // Stopped before its first step is recorded, a case is not unfinished: it has nothing in the evidence.
        let early = StoppingAdapterAtStart(stopIn: "refund/pro")
        let second = try await Runner(matrix: Self.matrix, adapter: early, context: context, wallClock: FixedClock(), jobs: 1)
            .run(into: BatchSink())
        #expect(second.interrupted && second.unfinishedCase == nil, "\(second)")
    }

    /// Stops the run (cancels its task) when case `stopIn` starts, before any of its steps.
    struct StoppingAdapterAtStart: EnvironmentAdapter {
        let stopIn: String
        var description: EnvironmentDescription { EnvironmentDescription(.exec) }

        func startCase(_ matrixCase: MatrixCase, of matrix: Matrix) async throws -> any CaseSession {
            if matrixCase.id == stopIn { withUnsafeCurrentTask { $0?.cancel() } }
            return StoppingSession(stops: false)
        }
    }
}
