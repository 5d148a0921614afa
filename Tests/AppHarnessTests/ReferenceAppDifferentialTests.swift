import AppHarness
import EvidenceStore
import FaultScoring
import Foundation
import LocalEnvironment
import MatrixAuthoring
import MatrixEngine
import MatrixModel
import ReferenceApp
import TestSupport
import Testing

/// The reference app is an app like a team's: `--env local` and the app harness running the reference app record
/// the same evidence (signatures aside, which are randomised: each JWS is compared by its decoded payload), for
/// the release matrix and for the `init` matrix of every fixture catalog, and score the same. A difference is a
/// bug in one of the two paths.
@Suite("Reference app: --env local and the app harness agree")
struct ReferenceAppDifferentialTests {
    /// A matrix file to run both ways: the release matrix, or one `matrix init` writes for a fixture catalog.
    struct Subject: Sendable, CustomTestStringConvertible {
        var name: String
        var path: String
        var testDescription: String { name }
    }

    static let directory: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("differential-\(ProcessInfo.processInfo.processIdentifier)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    /// The release matrix, then the `init` matrix of each fixture catalog, written beside a copy of its catalog.
    static let subjects: [Subject] = {
        var subjects = [Subject(name: "release", path: Fixtures.packageDirectory.appendingPathComponent("matrices/release.json").path)]
        for name in (try? Fixtures.storeKitFileNames()) ?? [] {
            guard let bytes = try? Fixtures.bytes("storekit/" + name),
                  let catalog = StoreKitConfigurationReader.read(bytes, file: name).0,
                  let output = try? MatrixGenerator.generate(catalog, options: .init(catalogReference: name)) else { continue }
            let folder = directory.appendingPathComponent(String(name.dropLast(".storekit".count)))
            try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try? Data(bytes).write(to: folder.appendingPathComponent(name))
            try? Data(output.bytes).write(to: folder.appendingPathComponent("matrix.json"))
            subjects.append(Subject(name: "init of " + name, path: folder.appendingPathComponent("matrix.json").path))
        }
        return subjects
    }()

    @Test("there is the release matrix and one init matrix per fixture catalog")
    func subjectCount() {
        #expect(Self.subjects.count == 18)
    }

    @Test("the same evidence through --env local and through the app harness", arguments: subjects)
    func sameEvidence(_ subject: Subject) async throws {
        let file = try MatrixFile.read(subject.path)
        let matrix = try #require(file.matrix, "\(file.diagnostics.map(\.rendered))")
        // --env local, as `matrix run` runs it.
        // Signing dominates the time of a debug run: the release matrix is signed and compared by payload; the
        // init matrices (about 6,000 steps) compare everything else.
        let signing = subject.name == "release"
        let adapter = try LocalAdapter(signing: signing, app: .reference())
        let sink = KeptRecords()
        let context = RunContext(runID: "local", environment: "local", build: "b", device: "embedded simulator", os: "n/a (embedded)")
        _ = try await HeavyWork.run { try await Runner(matrix: matrix, adapter: adapter, context: context, jobs: 2).run(into: sink) }
        let local = await sink.records
        // The harness a team uses, with the reference app as its app.
        let harness = try await HeavyWork.run {
            try await AppHarness.run(matrix: subject.path, options: .unhurried(reportsDirectory: nil, jobs: 2, build: "b", signing: signing)) {
                ReferenceApp(matrix: matrix, fault: nil)
            }
        }
        #expect(local.count == harness.records.count)
        #expect(!local.isEmpty && local.allSatisfy { $0.verdict == .pass || $0.verdict == .skipped })
        let signed = local.reduce(0) { $0 + ($1.observed?.signedData.count ?? 0) }
        #expect((signed > 0) == signing)
        for (a, b) in zip(local, harness.records) {
            guard let difference = try EvidenceComparison.difference(a, b) else { continue }
            Issue.record("\(a.case) #\(a.step) differs: \(difference)")
            return
        }
    }

    @Test("matrix score gives the same result through --env local and through the app harness", arguments: [subjects[0], subjects[5]])
    func sameScore(_ subject: Subject) async throws {
        let matrix = try #require(try MatrixFile.read(subject.path).matrix)
        let local = try await FaultScorer.score(matrix, jobs: 2)
        let harness = try await FaultScorer.score(matrix, jobs: 2) { fault in
            try LocalAdapter(signing: false, environment: .app, app: .app { ReferenceApp(matrix: matrix, fault: fault) })
        }
        #expect(local.results == harness.results)
        #expect(local.referencePasses && harness.referencePasses)
        #expect(local.percent == 100)
        if subject.name == "release" {
            // Every fault is scored, the five from real bug reports included; the release matrix's tiers are one
            // product each, so only the fault of a tier over two groups cannot show.
            #expect(local.results.count == AppFault.allCases.count && AppFault.allCases.count == 25)
            #expect(local.results.filter { !$0.applicable }.map(\.fault) == ["tierFromNewestTransaction"])
        }
    }
}

/// Keeps a run's records in memory.
actor KeptRecords: EvidenceSink {
    var records: [EvidenceRecord] = []

    func append(_ record: EvidenceRecord) async throws {
        records.append(record)
    }
}
