import Foundation
import Testing
import DriverKit
import MatrixModel
import TestSupport

/// A fake environment: one app whose access is whatever was last purchased, with scripted failures.
final class FakeDriver: Driver {
    var calls: [String] = []
    var access: [String] = []
    var shutdowns = 0

    func initialize(_ params: InitializeParams) async throws -> InitializeResult {
        calls.append("initialize \(params.matrix.name)")
        return InitializeResult(environment: "fake", actions: [.launch, .purchase, .refund, .observe], device: "fake device")
    }

    func reset(_ params: ResetParams) async throws {
        calls.append("reset \(params.case.id)")
        access = []
    }

    func perform(_ params: PerformParams, progress: DriverProgress) async throws -> PerformResult {
        calls.append("perform \(params.case)#\(params.index) \(params.step.action.rawValue)")
        switch params.step.action {
        case .purchase:
            await progress.wait(ms: 5000, message: "buying")
            access = ["pro"]
        case .refund:
            throw DriverError.environment("the refund sheet did not appear")
        case .observe:
            struct Broken: Error, CustomStringConvertible { var description: String { "the device went to sleep" } }
            throw Broken()
        case .advanceTime:
            return .unsupported(reason: "no clock")
        default:
            break
        }
        return .observed(Observation(access: access, storeTime: 1000), modelledWallTimeMs: 0)
    }

    func shutdown() async {
        shutdowns += 1
    }
}

/// Collects what the server writes.
actor Output {
    var lines: [String] = []
    func append(_ bytes: [UInt8]) { lines.append(String(decoding: bytes, as: UTF8.self)) }
}

@Suite("Driver server loop")
struct DriverServerTests {
    func request(_ id: Int, _ call: DriverCall) throws -> LineEvent {
        .line(Array(try DriverProtocol.line(DriverRequest(id: id, call: call)).dropLast()))
    }

    func serve(_ driver: FakeDriver, _ events: [LineEvent]) async -> (DriverServer.Ending, [String]) {
        let output = Output()
        let stream = AsyncStream<LineEvent> { continuation in
            for event in events { continuation.yield(event) }
            continuation.finish()
        }
        let ending = await DriverServer.serve(driver, lines: stream) { await output.append($0) }
        return (ending, await output.lines)
    }

    func initialize() -> DriverCall {
        let matrix = ExampleMatrix.matrix(cases: [MatrixCase(id: "c", kind: "refund", account: "a", steps: [Step(action: .launch)])])
        return .initialize(InitializeParams(matrix: matrix, matrixPath: nil, matrixSource: nil, catalogSource: nil,
                                            runner: .init(name: "matrix", version: "test")))
    }

    func perform(_ action: Action, _ index: Int) -> DriverCall {
        .perform(PerformParams(case: "c", index: index, account: "a", step: Step(action: action, product: ExampleMatrix.pro)))
    }

    @Test("a whole conversation: initialize, reset, perform with a progress notification, errors, shutdown")
    func conversation() async throws {
        let driver = FakeDriver()
        let matrix = ExampleMatrix.matrix(cases: [MatrixCase(id: "c", kind: "refund", account: "a", steps: [Step(action: .launch)])])
        let (ending, lines) = await serve(driver, [
            try request(1, perform(.launch, 0)),
            try request(2, initialize()),
            try request(3, .reset(ResetParams(matrix: matrix, case: matrix.cases[0]))),
            try request(4, perform(.purchase, 0)),
            try request(5, perform(.refund, 1)),
            try request(6, perform(.observe, 2)),
            try request(7, perform(.advanceTime, 3)),
            try request(8, .unknown("teleport")),
            .line(Array("{oops".utf8)),
            try request(9, .shutdown),
            try request(10, perform(.launch, 4)),
        ])
        #expect(ending == .shutdown)
        #expect(driver.calls == ["initialize example", "reset c", "perform c#0 purchase", "perform c#1 refund", "perform c#2 observe",
                                 "perform c#3 advanceTime"])
        #expect(driver.shutdowns == 1)
        try #require(lines.count == 11)
        #expect(lines[0] == #"{"error":{"code":-32600,"message":"perform before initialize"},"id":1}"# + "\n")
        #expect(lines[1].hasPrefix(#"{"id":2,"result":{"actions":["launch","purchase","refund","observe"],"device":"fake device","environment":"fake","protocolVersion":1}"#))
        #expect(lines[2] == #"{"id":3,"result":{}}"# + "\n")
        #expect(lines[3] == #"{"method":"progress","params":{"id":4,"message":"buying","waitMs":5000}}"# + "\n")
        #expect(lines[4].hasPrefix(#"{"id":4,"result":{"modelledWallTimeMs":0,"observation":{"access":["pro"]"#))
        #expect(lines[5] == #"{"error":{"code":1000,"message":"the refund sheet did not appear"},"id":5}"# + "\n")
        #expect(lines[6] == #"{"error":{"code":1000,"message":"the device went to sleep"},"id":6}"# + "\n")
        #expect(lines[7] == #"{"id":7,"result":{"reason":"no clock","status":"unsupported"}}"# + "\n")
        #expect(lines[8] == #"{"error":{"code":-32601,"message":"unknown method \"teleport\""},"id":8}"# + "\n")
        #expect(lines[9] == #"{"error":{"code":-32700,"message":"the request line is not JSON"},"id":null}"# + "\n")
        #expect(lines[10] == #"{"id":9,"result":{}}"# + "\n")
    }

    @Test("the end of input shuts the driver down; a wrong protocol version is refused")
    func endOfInput() async throws {
        let driver = FakeDriver()
        var call = initialize()
        if case .initialize(var params) = call {
            params.protocolVersion = 2
            call = .initialize(params)
        }
        let (ending, lines) = await serve(driver, [try request(1, call), try request(2, perform(.launch, 0))])
        #expect(ending == .endOfInput)
        #expect(driver.shutdowns == 1)
        #expect(driver.calls.isEmpty)
        #expect(lines.first?.contains(#""code":1001"#) == true)
        #expect(lines.last?.contains("perform before initialize") == true)
    }

    @Test("a server on real pipes: lines in through LineReader, responses out through LineWriter")
    func overPipes() async throws {
        let requests = Pipe()
        let responses = Pipe()
        let writer = LineWriter(responses.fileHandleForWriting)
        let driver = FakeDriver()
        let input = LineWriter(requests.fileHandleForWriting)
        try await input.write(try DriverProtocol.line(DriverRequest(id: 1, call: initialize())))
        try await input.write(try DriverProtocol.line(DriverRequest(id: 2, call: .shutdown)))
        let readHandle = requests.fileHandleForReading
        let ending = await DriverServer.serve(driver, lines: LineReader.lines(from: readHandle.fileDescriptor) { try? readHandle.close() }) {
            try await writer.write($0)
        }
        #expect(ending == .shutdown)
        writer.close()
        input.close()
        var received: [String] = []
        let responseHandle = responses.fileHandleForReading
        for await event in LineReader.lines(from: responseHandle.fileDescriptor, onClose: { try? responseHandle.close() }) {
            if case .line(let bytes) = event { received.append(String(decoding: bytes, as: UTF8.self)) }
        }
        #expect(received.count == 2)
        #expect(received.first?.contains(#""environment":"fake""#) == true)
        #expect(received.last == #"{"id":2,"result":{}}"#)
    }
}
