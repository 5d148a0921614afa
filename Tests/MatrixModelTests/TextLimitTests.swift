import Testing
import MatrixJSON
import MatrixModel

/// A name, id or key longer than 4 KB is a located error, quoted nowhere: it would be copied into every record
/// and report (a 50 MB matrix name made 354 MB of reports).
@Suite("Text limit")
struct TextLimitTests {
    static func matrix(name: String = "m", tier: String = "pro", caseID: String = "one") -> [UInt8] {
        Array("""
            {"schemaVersion": 1, "name": "\(name)", "app": {"bundleId": "com.example.app"},
             "catalog": {"products": [{"productID": "pro", "type": "NonConsumable", "displayPrice": "9.99"}]},
             "tiers": {"\(tier)": ["pro"]}, "accounts": {"a": {}},
             "cases": [{"id": "\(caseID)", "kind": "fresh-purchase", "account": "a",
                        "steps": [{"action": "purchase", "product": "pro", "expect": {"result": "success"}}]}]}
            """.utf8)
    }

    func load(_ bytes: [UInt8]) -> MatrixLoader.Result {
        MatrixLoader.load(bytes, file: "m.json") { _ in .unreadable(reason: "inline only") }
    }

    @Test("a 256 KB matrix name, case id or tier name is one MX008 error at its place, and no message quotes it",
          arguments: [("name", "/name", 1), ("caseID", "/cases/0/id", 4), ("tier", "/tiers/" + String(repeating: "n", count: 40) + "…", 3)])
    func tooLong(field: String, pointer: String, line: Int) throws {
        let long = String(repeating: "n", count: 256 << 10)
        let bytes = field == "name" ? Self.matrix(name: long) : field == "caseID" ? Self.matrix(caseID: long) : Self.matrix(tier: long)
        let result = load(bytes)
        #expect(result.matrix == nil)
        let error = try #require(result.diagnostics.first { $0.code == .textTooLong }, "\(result.diagnostics.map(\.code))")
        #expect(error.pointer == pointer)
        #expect(error.location.line == line)
        #expect(error.message == "\(field == "tier" ? "a key" : "a string") of \(256 << 10) bytes, longer than the 4096 allowed")
        #expect(result.diagnostics.map(\.rendered).joined().utf8.count < 2000, "no diagnostic quotes the value")
    }

    @Test("each long string is reported at its own pointer, in document order, however deep and after whatever siblings")
    func pointers() throws {
        let long = String(repeating: "x", count: 5000)
        let text = #"{"a": [{"x": "\#(long)", "k": {"deep": [1, 2]}}, {"y~/": [1, "\#(long)"]}], "b": {"c": "\#(long)"}, "d": "\#(long)", "e": ["\#(long)"]}"#
        let value = try #require(JSONReader.read(Array(text.utf8), file: "d.json").value)
        let sink = DiagnosticCollector(file: "d.json")
        JSONTextLimit.check(value, pointer: "/root", sink)
        #expect(sink.diagnostics.map(\.pointer) == ["/root/a/0/x", "/root/a/1/y~0~1/1", "/root/b/c", "/root/d", "/root/e/0"])
        #expect(sink.diagnostics.allSatisfy { $0.code == .textTooLong })
    }

    @Test("4096 bytes is still a name")
    func atLimit() {
        let result = load(Self.matrix(name: String(repeating: "é", count: 2048)))
        #expect(result.matrix?.name.utf8.count == 4096, "\(result.diagnostics.map(\.rendered))")
    }

    @Test("a catalog's product id of 128 KB is MX008 in the catalog")
    func catalog() throws {
        let id = String(repeating: "p", count: 128 << 10)
        let catalog = Array(#"{"identifier": "C", "products": [{"productID": "\#(id)", "type": "NonConsumable", "displayPrice": "1"}], "version": {"major": 3, "minor": 0}}"#.utf8)
        let (configuration, diagnostics) = StoreKitConfigurationReader.read(catalog, file: "Products.storekit")
        #expect(configuration == nil)
        #expect(diagnostics.map(\.code) == [.textTooLong])
        #expect(diagnostics.first?.pointer == "/products/0/productID")
    }

    @Test("a long key named twice is quoted by its start only")
    func duplicateLongKey() {
        let key = String(repeating: "k", count: 128 << 10)
        let document = JSONReader.read(Array(#"{"\#(key)": 1, "\#(key)": 2}"#.utf8), file: "d.json")
        #expect(document.diagnostics.count == 1)
        #expect(document.diagnostics.allSatisfy { $0.message.utf8.count < 200 })
    }
}
