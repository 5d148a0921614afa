import Foundation
import Testing
import DriverKit
import MatrixModel

/// A protocol message that names a member twice is refused: one reader would answer the first `id` or use the
/// first `status`, another the last.
@Suite("Driver protocol messages: a member named twice is refused")
struct DuplicateKeyMessageTests {
    @Test("a request that repeats a member anywhere, params included, is invalidRequest naming the key", arguments: [
        (#"{"id":1,"method":"reset","method":"shutdown","params":{}}"#, nil, DriverError.invalidRequest, #"duplicate key "method""#),
        (#"{"id":1,"id":2,"method":"shutdown","params":{}}"#, nil, DriverError.invalidRequest, #"line 1, column 9: duplicate key "id""#),
        (#"{"id":3,"method":"perform","params":{"case":"c","index":0,"account":"a","step":{"action":"launch","action":"purchase"}}}"#,
         nil, DriverError.invalidRequest, #"(at /params/step/action)"#),
    ] as [(String, Int?, Int, String)])
    func requests(line: String, id: Int?, code: Int, words: String) {
        guard case .failure(let failure) = DriverRequest.parse(Array(line.utf8)) else {
            Issue.record("\(line) parsed as a request")
            return
        }
        #expect(failure.id == id)
        #expect(failure.error.code == code)
        #expect(failure.error.message.hasPrefix("the request repeats a member, which readers resolve differently: "), "\(failure.error.message)")
        #expect(failure.error.message.contains(words), "\(failure.error.message)")
    }

    @Test("a driver's line that repeats a member is no protocol message, at the top or inside its result", arguments: [
        (#"{"id":5,"result":{"status":"observed","observation":{}},"id":6}"#, #"duplicate key "id""#),
        (#"{"id":5,"result":{"status":"unsupported","reason":"no","status":"observed","observation":{}}}"#, #"(at /result/status)"#),
        (#"{"id":5,"result":{"status":"observed","observation":{"access":[],"access":["pro"]}}}"#, #"(at /result/observation/access)"#),
        (#"{"method":"progress","params":{"id":1},"params":{"id":2}}"#, #"duplicate key "params""#),
    ])
    func outputs(line: String, words: String) {
        do {
            let output = try DriverOutput.parse(Array(line.utf8))
            Issue.record("\(line) parsed as \(output)")
        } catch {
            #expect(error.reason.hasPrefix("it repeats a member, which readers resolve differently: "), "\(error.reason)")
            #expect(error.reason.contains(words), "\(error.reason)")
        }
    }

    @Test("a response built by hand around a line that repeats a member does not decode as a result")
    func resultOfHandBuiltResponse() throws {
        let response = DriverResponse(id: 5, outcome: .result(Data(#"{"id":5,"result":{"status":"unsupported","reason":"a","reason":"b"}}"#.utf8)))
        #expect(throws: (any Error).self) { try response.result(as: PerformResult.self) }
    }
}
