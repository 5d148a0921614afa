@testable import FaultScoring
import Foundation
@testable import LocalEnvironment
@testable import MatrixEngine
@testable import MatrixModel
import ReferenceApp
@testable import TestSupport
import Testing

/// The release matrix on every clock `--clock` accepts: the schedule changes how long things take, never what
/// StoreKit does, so every step passes (TestFlight skips billing retry as an environment limit).
@Suite("The release matrix on every clock")
struct EveryClockTests {
    static let schedules: [RenewalSchedule] = [.real, .testFlight]
        + RenewalSchedule.TimeRate.allCases.map(RenewalSchedule.xcode)
        + RenewalSchedule.SandboxRenewalRate.allCases.map(RenewalSchedule.sandbox)

    static func releaseMatrix() throws -> Matrix {
        let directory = Fixtures.packageDirectory.appendingPathComponent("matrices")
        let bytes = [UInt8](try Data(contentsOf: directory.appendingPathComponent("release.json")))
        let catalog = [UInt8](try Data(contentsOf: directory.appendingPathComponent("Products.storekit")))
        let loaded = MatrixLoader.load(bytes, file: "release.json") { _ in .contents(catalog, displayPath: "Products.storekit") }
        return try #require(loaded.matrix, "\(loaded.diagnostics.map(\.rendered))")
    }

    // A case's store holds only the accounts the case uses: at timeRate 1005 (a renewal every 2 seconds) another
    // account's subscription would otherwise renew tens of thousands of times on every clock move.
    @Test("no step fails or errors", arguments: schedules)
    func releaseMatrixPasses(schedule: RenewalSchedule) async throws {
        let matrix = try Self.releaseMatrix()
        let adapter = try LocalAdapter(schedule: schedule, signing: false, app: .reference())
        let context = RunContext(runID: "clocks", environment: "local", build: "test", device: "embedded simulator", os: "n/a")
        let sink = FirstProblemSink()
        _ = try await Runner(matrix: matrix, adapter: adapter, context: context, jobs: 2).run(into: sink)
        let problem = await sink.first
        #expect(problem == nil, "\(schedule): \(problem.map { "\($0.case) #\($0.step): \($0.reason ?? "")" } ?? "")")
    }
}
