import Foundation
import DriverKit
import ExecEnvironment
import MatrixEngine
import MatrixModel
import Reporters
import TestSupport

/// Runs small matrices through ``ExecAdapter`` with the scripts in `Tests/ExecEnvironmentTests/Drivers/`.
enum DriverHarness {
    static let drivers = Fixtures.packageDirectory.appendingPathComponent("Tests/ExecEnvironmentTests/Drivers")

    /// Two cases: `first` (launch, purchase, relaunch) and `second` (launch); the scripts misbehave on purchase.
    static let matrixSource = """
        {"schemaVersion": 1, "name": "misbehaving", "app": {"bundleId": "com.example.storekitmatrix"}, "catalog": "Products.storekit",
         "tiers": {"pro": ["com.example.storekitmatrix.pro"]},
         "accounts": {"a": {}},
         "cases": [
          {"id": "first", "kind": "fresh-purchase", "account": "a", "steps": [
            {"action": "launch", "expect": {"access": []}},
            {"action": "purchase", "product": "com.example.storekitmatrix.pro", "expect": {"access": ["pro"]}},
            {"action": "relaunch", "expect": {"access": ["pro"]}}]},
          {"id": "second", "kind": "fresh-purchase", "account": "a", "steps": [
            {"action": "launch", "expect": {"access": []}}]}
         ]}
        """

    static func matrix(_ source: String = matrixSource) throws -> Matrix {
        let catalog = try Data(contentsOf: Fixtures.packageDirectory.appendingPathComponent("matrices/Products.storekit"))
        let result = MatrixLoader.load(Array(source.utf8), file: "misbehaving.json") { _ in .contents(Array(catalog), displayPath: "Products.storekit") }
        guard let matrix = result.matrix else { throw HarnessError(message: result.diagnostics.map(\.rendered).joined(separator: "\n")) }
        return matrix
    }

    static func params(_ matrix: Matrix, source: String = matrixSource) -> InitializeParams {
        InitializeParams(matrix: matrix, matrixPath: "misbehaving.json", matrixSource: source, catalogSource: nil,
                         runner: .init(name: "matrix", version: "test"))
    }

    static func configuration(_ script: String, timeout: Duration = .seconds(60)) -> ExecAdapter.Configuration {
        ExecAdapter.Configuration(arguments: [drivers.appendingPathComponent(script).path], stepTimeout: timeout)
    }

    /// What a run left.
    struct Run {
        var records: [EvidenceRecord]
        var elapsed: Duration
        var description: EnvironmentDescription

        func record(_ caseID: String, _ step: Int) -> EvidenceRecord? {
            records.first { $0.case == caseID && $0.step == step }
        }

        /// The driver process IDs the scripts reported in their observations' messages ("pid 123").
        var driverPIDs: [Int32] {
            records.compactMap { $0.observed?.message }.compactMap { $0.hasPrefix("pid ") ? Int32($0.dropFirst(4)) : nil }
        }
    }

    /// Runs the matrix with `script` as the driver and shuts the drivers down, at `priority` (see
    /// ``conversing(at:_:)``).
    static func run(_ script: String, timeout: Duration = .seconds(60), jobs: Int = 1, source: String = matrixSource,
                    priority: TaskPriority = .high) async throws -> Run {
        try await conversing(at: priority) {
            let matrix = try self.matrix(source)
            let clock = ContinuousClock()
            let start = clock.now
            let adapter = try await ExecAdapter.start(configuration(script, timeout: timeout), params: params(matrix, source: source))
            let sink = MemorySink()
            let context = RunContext(runID: "test", environment: adapter.description.name, build: "test", device: "test", os: "test")
            _ = try await Runner(matrix: matrix, adapter: adapter, context: context, jobs: jobs).run(into: sink)
            await adapter.shutdown()
            return Run(records: await sink.records, elapsed: clock.now - start, description: adapter.description)
        }
    }

    /// Runs a conversation with drivers at `priority`, high unless the test says otherwise.
    ///
    /// On Linux each task priority has a pool of worker threads of its own. Every test runs at the default
    /// priority, and on a loaded machine a task of default priority can wait seconds for a thread: an answer
    /// that came in milliseconds would then reach the adapter after its step timeout. At high priority the
    /// conversation gets threads that only a few tests use. The driver's stderr, though, is read by a task of
    /// default priority whatever the caller's (a detached task), and could then reach the log after the
    /// reason that quotes it is written. A test whose reason quotes it converses at default priority, where
    /// one pool runs the work in the order it came (the driver's stderr before the timeout that follows it),
    /// with step timeouts long enough for the answers that must come in time.
    static func conversing<Value: Sendable>(at priority: TaskPriority = .high,
                                            _ body: @escaping @Sendable () async throws -> Value) async throws -> Value {
        try await Task(priority: priority, operation: body).value
    }

    /// Process IDs among `pids` that are still children of this process (running, or zombies not reaped),
    /// after giving the system up to 30 s to reap them (a reaper thread on a loaded machine may run late; a
    /// child never reaped stays).
    static func unreapedChildren(_ pids: [Int32]) async -> [Int32] {
        let me = getpid()
        var left = pids
        for _ in 0..<3_000 {
            left = left.filter { pid in
                guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                      let close = stat.lastIndex(of: ")") else { return false }
                let fields = stat[stat.index(after: close)...].split(separator: " ")
                return fields.count > 1 && Int32(fields[1]) == me
            }
            if left.isEmpty { return [] }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return left
    }
}

struct HarnessError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// Keeps records in memory.
actor MemorySink: EvidenceSink {
    var records: [EvidenceRecord] = []

    func append(_ record: EvidenceRecord) async throws {
        records.append(record)
    }
}
