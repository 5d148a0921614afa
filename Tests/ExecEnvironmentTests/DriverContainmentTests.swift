import Foundation
import Testing
@testable import ExecEnvironment
@testable import MatrixEngine
@testable import MatrixModel
@testable import TestSupport

/// What a driver starts is ended with it, even a helper that left its process group with setsid(); a driver
/// that exits while such a helper holds its stdout is reported as exited, not as a step that timed out.
@Suite("Driver containment")
struct DriverContainmentTests {
    /// Runs the matrix with `escape.sh` in `mode`; returns the run and the helper's process ID.
    static func run(_ mode: String, timeout: Duration) async throws -> (DriverHarness.Run, Int32) {
        let scratch = try MatrixBinary.scratchDirectory("matrix-escape")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let pidfile = scratch.appendingPathComponent("helper.pid")
        let matrix = try DriverHarness.matrix()
        let configuration = ExecAdapter.Configuration(
            arguments: [DriverHarness.drivers.appendingPathComponent("escape.sh").path, pidfile.path, mode], stepTimeout: timeout)
        let adapter = try await ExecAdapter.start(configuration, params: DriverHarness.params(matrix))
        let sink = MemorySink()
        let context = RunContext(runID: "test", environment: adapter.description.name, build: "test", device: "test", os: "test")
        _ = try await Runner(matrix: matrix, adapter: adapter, context: context, jobs: 1).run(into: sink)
        await adapter.shutdown()
        let text = try String(contentsOf: pidfile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let pid = try #require(Int32(text))
        return (DriverHarness.Run(records: await sink.records, elapsed: .zero, description: adapter.description), pid)
    }

    /// Whether `pid` is still a process that runs (a zombie has ended).
    static func running(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(after: close)...].split(separator: " ").first != "Z"
    }

    /// Whether `pid` stops running within `limit`: a signalled process takes a moment to end on a loaded machine.
    static func ends(_ pid: Int32, within limit: Duration = .seconds(30)) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while running(pid) {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return true
    }

    #if os(Linux)
    @Test("A driver that exits while a setsid() helper holds its stdout is reported as exited, and the helper is ended",
          .timeLimit(.minutes(5)))
    func exitedWhileHeld() async throws {
        // A timeout this long would outlast the time limit: only the driver's exit can end the step.
        let (run, helper) = try await Self.run("holder", timeout: .seconds(600))
        let reason = try #require(run.record("first", 1)?.reason)
        #expect(reason.hasPrefix("the driver exited with status 3 while handling perform"), "\(reason)")
        #expect(await Self.ends(helper), "the helper \(helper) that left the driver's process group still runs")
        #expect(await DriverHarness.unreapedChildren([helper]).isEmpty, "the helper was left a zombie")
    }

    @Test("A setsid() daemon a driver started is ended when the driver is shut down", .timeLimit(.minutes(5)))
    func daemonEnded() async throws {
        let (run, helper) = try await Self.run("daemon", timeout: .seconds(10))
        #expect(run.records.allSatisfy { $0.verdict == .pass }, "\(run.records.map(\.reason))")
        #expect(await Self.ends(helper), "the daemon \(helper) outlived its driver")
        // Running drivers through the library leaves its host as it was: a host made a subreaper adopts the
        // orphans of everything it starts (a shell pipeline's `yes`), which nothing in it reaps, and a test
        // runner waiting on its own children then waits on those.
        #expect(DriverContainment.isSubreaper == false)
    }
    #endif
}
