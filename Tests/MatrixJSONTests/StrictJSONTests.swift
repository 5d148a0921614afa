import Foundation
import Testing
import MatrixJSON

@Suite("Strict JSON: one rule for evidence, manifests, driver messages and signed data")
struct StrictJSONTests {
    struct Record: Decodable, Equatable {
        var verdict: String
        var seq: Int
        var nested: Nested?
    }

    struct Nested: Decodable, Equatable {
        var items: [Int]
    }

    @Test("A duplicate key is refused, naming the key, its line and column and its pointer, at any depth")
    func duplicateKey() throws {
        let top = #expect(throws: StrictJSONError.self) {
            try StrictJSON.decode(Record.self, from: Data(#"{"verdict":"fail","seq":1,"verdict":"pass"}"#.utf8))
        }
        #expect(top?.kind == .duplicateKey("verdict"))
        #expect(top?.location == SourceLocation(line: 1, column: 27))
        #expect(top?.description == #"line 1, column 27: duplicate key "verdict": each key may appear once in an object (at /verdict)"#)
        #expect(top?.located(in: "evidence.jsonl", line: 12) == #"evidence.jsonl:12:27: duplicate key "verdict": each key may appear once in an object (at /verdict)"#)

        let deep = #expect(throws: StrictJSONError.self) {
            try StrictJSON.parse(Array("{\"a\": [{\"b/c\": 1,\n \"b/c\": 2}]}".utf8))
        }
        #expect(deep?.kind == .duplicateKey("b/c"))
        #expect(deep?.pointer == "/a/0/b~1c")
        #expect(deep?.location == SourceLocation(line: 2, column: 2))
    }

    @Test("The same key in different objects is no duplicate")
    func sameKeyElsewhere() throws {
        let record = try StrictJSON.decode(Record.self, from: Data(#"{"verdict":"pass","seq":1,"nested":{"items":[1]}}"#.utf8))
        #expect(record == Record(verdict: "pass", seq: 1, nested: Nested(items: [1])))
        _ = try StrictJSON.parse(Array(#"[{"a":1},{"a":2}]"#.utf8))
    }

    @Test("Syntax errors and shapes that do not decode are located too")
    func otherErrors() throws {
        let syntax = #expect(throws: StrictJSONError.self) { try StrictJSON.parse(Array(#"{"seq": 1,}"#.utf8)) }
        #expect(syntax?.kind == .invalidJSON)
        #expect(syntax?.location?.line == 1)
        let type = #expect(throws: StrictJSONError.self) {
            try StrictJSON.decode(Record.self, from: Data("{\"verdict\": \"pass\",\n  \"seq\": \"one\"}".utf8))
        }
        #expect(type?.kind == .wrongShape)
        #expect(type?.description == "line 2, column 10: expected an integer, found a string (at /seq)")
        let missing = #expect(throws: StrictJSONError.self) { try StrictJSON.decode(Record.self, from: Data(#"{"seq": 1}"#.utf8)) }
        #expect(missing?.description == #"line 1, column 1: missing key "verdict""#)
        let element = #expect(throws: StrictJSONError.self) {
            try StrictJSON.decode(Record.self, from: Data(#"{"verdict":"pass","seq":1,"nested":{"items":[1,true]}}"#.utf8))
        }
        #expect(element?.pointer == "/nested/items/1")
        #expect(element?.location == SourceLocation(line: 1, column: 48))
    }

    @Test("A number the decoder refuses without a path is located: out of range first, then a fraction where a whole number goes")
    func refusedNumbers() throws {
        func refusal(_ text: String) -> StrictJSONError? {
            #expect(throws: StrictJSONError.self) { try StrictJSON.decode(Record.self, from: Data(text.utf8)) }
        }
        let huge = refusal(#"{"verdict":"pass","seq":99999999999999999999}"#)
        #expect(huge?.pointer == "/seq" && huge?.location == SourceLocation(line: 1, column: 25))
        #expect(huge?.reason.hasPrefix("the number 99999999999999999999 is beyond the range of a 64-bit whole number") == true)
        let nested = refusal(#"{"verdict":"pass","seq":1,"nested":{"items":[1,2.5]}}"#)
        #expect(nested?.pointer == "/nested/items/1" && nested?.reason.hasPrefix("the number 2.5 is not a whole number") == true)
        // Where a fraction and an out-of-range number are both present, the second is the likelier refusal.
        let both = refusal(#"{"verdict":"pass","seq":1.5,"nested":{"items":[1e400]}}"#)
        #expect(both?.pointer == "/nested/items/0" && both?.reason.hasPrefix("the number 1e400 is beyond the range of a number") == true)
        #expect(refusal(#"{"verdict":"pass","seq":-9223372036854775809}"#)?.pointer == "/seq")
    }
}
