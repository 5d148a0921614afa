import Foundation
import Testing
import DriverKit
import ExecEnvironment
import MatrixEngine
import MatrixModel

/// A step's `failNext` reaches only drivers that announce the call in `failableCalls`: a driver that cannot
/// make the call fail never passes the step by ignoring it.
@Suite("failNext over the driver protocol")
struct FailNextDriverTests {
    static let source = """
        {"schemaVersion": 1, "name": "failing", "app": {"bundleId": "com.example.storekitmatrix"}, "catalog": "Products.storekit",
         "tiers": {"pro": ["com.example.storekitmatrix.pro"]},
         "accounts": {"a": {}},
         "cases": [
          {"id": "offline", "kind": "fresh-purchase", "account": "a", "steps": [
            {"action": "launch", "expect": {"access": []}},
            {"action": "purchase", "product": "com.example.storekitmatrix.pro", "failNext": {"call": "purchase", "error": "networkError"},
             "expect": {"result": "failed", "access": []}}]}
         ]}
        """

    func run(_ arguments: [String]) async throws -> [EvidenceRecord] {
        let matrix = try DriverHarness.matrix(Self.source)
        let configuration = ExecAdapter.Configuration(arguments: [DriverHarness.drivers.appendingPathComponent(arguments[0]).path]
                                                      + arguments.dropFirst(), stepTimeout: .seconds(10))
        let adapter = try await ExecAdapter.start(configuration, params: DriverHarness.params(matrix, source: Self.source))
        let sink = MemorySink()
        let context = RunContext(runID: "test", environment: adapter.description.name, build: "test", device: "test", os: "test")
        _ = try await Runner(matrix: matrix, adapter: adapter, context: context).run(into: sink)
        await adapter.shutdown()
        return await sink.records
    }

    @Test("a driver that announces no failableCalls gets no step with failNext: the step is skipped, saying why")
    func notAnnounced() async throws {
        let records = try await run(["plain.sh"])
        #expect(records.map(\.verdict) == [.pass, .skipped])
        #expect(records.last?.reason == "the misbehaving driver cannot make Product.purchase(options:) fail (failNext): it announces no failableCalls")
    }

    @Test("a driver that announces the call receives the step with its failNext and is judged on what it observes")
    func announced() async throws {
        let records = try await run(["failable.sh", #"["purchase","sync"]"#])
        #expect(records.map(\.verdict) == [.pass, .pass])
        #expect(records.last?.action.failNext == FailNext(call: .purchase, error: "networkError"))
    }

    @Test("a failableCalls name matrix does not know stops the run before anything is written")
    func unknownCall() async throws {
        let error = await #expect(throws: AdapterError.self) {
            _ = try await run(["failable.sh", #"["purchases"]"#])
        }
        #expect(error?.message.contains(#"the driver announces failableCalls matrix does not know: "purchases""#) == true)
    }
}
