import Testing
import MatrixJSON
import MatrixModel

/// A file with absurdly many problems costs bounded time and memory: the first ``DiagnosticCollector/defaultLimit``
/// are reported, then one error says how many more were found and that the rest was not checked.
@Suite("Diagnostic limit")
struct DiagnosticLimitTests {
    /// A matrix whose every case names an unknown product: one error per case.
    static func matrix(cases: Int) -> [UInt8] {
        let steps = #"[{"action": "purchase", "product": "nope", "expect": {"result": "success"}}]"#
        let list = (0..<cases).map { #"{"id": "c\#($0)", "kind": "fresh-purchase", "account": "a", "steps": \#(steps)}"# }
        return Array("""
            {"schemaVersion": 1, "name": "many", "app": {"bundleId": "com.example.app"},
             "catalog": {"products": [{"productID": "pro", "type": "NonConsumable", "displayPrice": "9.99"}]},
             "tiers": {"pro": ["pro"]}, "accounts": {"a": {}},
             "cases": [\(list.joined(separator: ",\n"))]}
            """.utf8)
    }

    @Test("a matrix with 20,000 errors reports 1,000 and one MX007 saying the rest were not checked")
    func manyErrors() throws {
        let result = MatrixLoader.load(Self.matrix(cases: 20_000), file: "m.json") { _ in .unreadable(reason: "inline only") }
        #expect(result.matrix == nil)
        #expect(result.diagnostics.count == DiagnosticCollector.defaultLimit + 1, "\(result.diagnostics.count) diagnostics")
        let last = try #require(result.diagnostics.first { $0.code == .tooManyProblems })
        #expect(last.severity == .error)
        #expect(last.message.contains("more than 1000 problems"), "\(last.message)")
        // The kept problems are the first ones of the file, not whichever core finished first.
        let unknown = result.diagnostics.filter { $0.code != .tooManyProblems }
        #expect(unknown.map(\.pointer).first == "/cases/0/steps/0/product")
        #expect(unknown.allSatisfy { $0.location.line <= 1 + DiagnosticCollector.defaultLimit + 4 })
    }

    @Test("a file with fewer problems than the limit is reported whole, without MX007")
    func fewErrors() {
        let result = MatrixLoader.load(Self.matrix(cases: 30), file: "m.json") { _ in .unreadable(reason: "inline only") }
        #expect(result.diagnostics.count == 30)
        #expect(!result.diagnostics.contains { $0.code == .tooManyProblems })
    }

    @Test("200,000 duplicate keys keep at most the limit of warnings")
    func duplicateKeys() {
        let keys = (0..<200_000).map { _ in #""k": 1"# }.joined(separator: ",")
        let document = JSONReader.read(Array("{\(keys)}".utf8), file: "d.json")
        #expect(document.value != nil)
        #expect(document.diagnostics.count <= DiagnosticCollector.defaultLimit + 1, "\(document.diagnostics.count) warnings")
    }

    @Test("a collector keeps its limit, counts the rest, and finishing a full one adds an error")
    func collector() throws {
        let sink = DiagnosticCollector(file: "f.json", limit: 3)
        for index in 0..<3 { sink.warning(.invalidValue, "w\(index)", pointer: "/\(index)", at: .start) }
        #expect(!sink.hasErrors)
        sink.error(.invalidValue, "dropped", pointer: "/3", at: .start)
        sink.warning(.invalidValue, "dropped too", pointer: "/4", at: .start)
        #expect(sink.diagnostics.map(\.message) == ["w0", "w1", "w2"])
        #expect(sink.dropped == 2)
        #expect(sink.hasErrors, "an error past the limit still makes the file fail")
        sink.finish()
        let last = try #require(sink.diagnostics.last)
        #expect(last.code == .tooManyProblems && last.severity == .error)
        #expect(last.message.contains("(2 more found)"), "\(last.message)")

        let quiet = DiagnosticCollector(file: "f.json", limit: 3)
        quiet.warning(.invalidValue, "one", pointer: "", at: .start)
        quiet.finish()
        #expect(quiet.diagnostics.count == 1 && !quiet.hasErrors, "a collector that is not full finishes unchanged")
    }
}
