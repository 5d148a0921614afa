import Testing
import MatrixJSON
import TestSupport

/// The reader's error, or an issue when the document parsed.
private func failure(_ source: MarkedSource, file: String? = "t.json") -> [Diagnostic] {
    failure(source.bytes, file: file)
}

private func failure(_ bytes: [UInt8], file: String? = "t.json") -> [Diagnostic] {
    switch JSONReader.parse(bytes, file: file) {
    case .success(let value):
        Issue.record("expected a syntax error, parsed \(value.typeDescription)")
        return []
    case .failure(let failure):
        return failure.diagnostics
    }
}

@Suite("JSON reader")
struct JSONReaderTests {
    // MARK: Values and positions

    @Test("values keep their kind and the position where they start")
    func valuesAndPositions() throws {
        let source = MarkedSource("""
            ⟨root⟩{
              ⟨k⟩"name": ⟨s⟩"matrix",
              "n": ⟨n⟩-12.5e3,
              "list": ⟨a⟩[⟨t⟩true, ⟨f⟩false, ⟨z⟩null],
              "empty": ⟨o⟩{}
            }
            """)
        let root = try JSONReader.parse(source.bytes).get()
        #expect(root.location == source.location("root"))
        let object = try #require(root.objectValue)
        #expect(object.keys == ["name", "n", "list", "empty"])
        #expect(object.members[0].keyLocation == source.location("k"))
        #expect(object["name"] == JSONValue(.string("matrix"), at: source.location("s")))
        #expect(object["n"] == JSONValue(.number("-12.5e3"), at: source.location("n")))
        let list = try #require(object["list"])
        #expect(list.location == source.location("a"))
        #expect(list.arrayValue == [
            JSONValue(.bool(true), at: source.location("t")),
            JSONValue(.bool(false), at: source.location("f")),
            JSONValue(.null, at: source.location("z")),
        ])
        #expect(object["empty"] == JSONValue(.object(JSONObject()), at: source.location("o")))
    }

    @Test("columns count UTF-8 bytes, and CR LF line ends count as one line")
    func columnsCountBytes() throws {
        let root = try JSONReader.parse(Array("{\r\n\"é\": \"ü\", \"x\": 1}".utf8)).get()
        let object = try #require(root.objectValue)
        // Line 2 is `"é": "ü", "x": 1}`: "é" is two bytes, so "ü" starts at byte 7 and "x" at byte 13.
        #expect(object["é"]?.location == .init(line: 2, column: 7))
        #expect(object.members[1].keyLocation == .init(line: 2, column: 13))
        #expect(object["x"]?.location == .init(line: 2, column: 18))
    }

    @Test("markers count lines and byte columns as the reader does, CR LF included")
    func markersMatchReader() throws {
        let source = MarkedSource("{\r\n  ⟨k⟩\"é\": ⟨v⟩1,\r\n\t⟨x⟩\"x\": ⟨n⟩null\r\n}")
        #expect(source.text == "{\r\n  \"é\": 1,\r\n\t\"x\": null\r\n}")
        #expect(source.location("k") == .init(line: 2, column: 3))
        #expect(source.location("v") == .init(line: 2, column: 9))
        let object = try #require(try JSONReader.parse(source.bytes).get().objectValue)
        #expect(object.members.map(\.keyLocation) == [source.location("k"), source.location("x")])
        #expect(object["é"]?.location == source.location("v"))
        #expect(object["x"]?.location == source.location("n"))
    }

    @Test("a document that starts like YAML gets a hint that matrices are JSON; a JSON syntax error does not", arguments: [
        ("name: release\ncases: []\n", true),
        ("apiVersion: 1\n", true),
        ("# a matrix\n{}", true),
        ("---\nname: x\n", true),
        ("- launch\n", true),
        ("null: 1\n", true),
        ("{\"name\": release}", false),
        ("[1, 2,]", false),
        ("-5 x", false),
        ("nul", false),
        ("\"text\" more", false),
    ])
    func yamlHint(text: String, hinted: Bool) {
        let diagnostics = failure(Array(text.utf8))
        #expect(diagnostics.count == 1 && diagnostics.first?.code == .invalidJSON)
        let hint = "the file does not start like JSON; matrices and .storekit files are JSON (YAML is not read)"
        #expect((diagnostics.first?.hint == hint) == hinted, "\(text): \(diagnostics.first?.hint ?? "no hint")")
    }

    @Test("a leading byte order mark is skipped and does not shift columns")
    func byteOrderMark() throws {
        let root = try JSONReader.parse([0xEF, 0xBB, 0xBF] + Array(#"{"a": [1]}"#.utf8)).get()
        #expect(root.location == .init(line: 1, column: 1))
        #expect(root.objectValue?["a"]?.location == .init(line: 1, column: 7))
        #expect(root.objectValue?["a"]?.arrayValue?.first?.numberText == "1")
    }

    @Test("a byte order mark after the first byte is an error")
    func byteOrderMarkInside() {
        let diagnostics = failure([0x20, 0xEF, 0xBB, 0xBF, 0x7B, 0x7D])
        #expect(diagnostics.summaries == ["1:2 error MX001 /"])
    }

    @Test("numbers are kept exactly as written", arguments: [
        "0", "-0", "42", "-7", "3.14", "0.10", "1e3", "1E+3", "2.5e-7", "4.990",
        "123456789012345678901234567890", "1e400", "-0.000000000000000000000000001",
    ])
    func numbersKeptAsWritten(text: String) throws {
        let value = try JSONReader.parse(Array("[\(text)]".utf8)).get()
        #expect(value.arrayValue?.first?.numberText == text)
    }

    @Test("huge numbers survive as text but are neither Int nor finite Double")
    func hugeNumbers() throws {
        let root = try JSONReader.parse(Array(#"[123456789012345678901234567890, 1e400, 9223372036854775807, 1.0, 1e2, 1.5]"#.utf8)).get()
        let values = try #require(root.arrayValue)
        #expect(values[0].intValue == nil)
        #expect(values[0].doubleValue == 1.2345678901234568e29)
        #expect(values[1].doubleValue == nil)
        #expect(values[1].intValue == nil)
        #expect(values[2].intValue == Int.max)
        #expect(values[3].intValue == 1)
        #expect(values[4].intValue == 100)
        #expect(values[5].intValue == nil)
        #expect(values[5].doubleValue == 1.5)
    }

    @Test("escapes decode, including surrogate pairs")
    func escapes() throws {
        let root = try JSONReader.parse(Array(#"["\"\\\/\b\f\n\r\t", "\u0041\u00e9\u20AC", "\uD83D\uDE00", "😀 é"]"#.utf8)).get()
        let strings = try #require(root.arrayValue).map(\.stringValue)
        #expect(strings == ["\"\\/\u{08}\u{0C}\n\r\t", "Aé€", "😀", "😀 é"])
    }

    // MARK: Syntax errors

    struct SyntaxError: Sendable, CustomTestStringConvertible {
        var name: String
        var source: String
        var message: String
        var pointer: String
        var hint: String? = nil
        var testDescription: String { name }
    }

    static let syntaxErrors: [SyntaxError] = [
        SyntaxError(name: "missing comma between members", source: """
            {
              "a": 1
              ⟨e⟩"b": 2
            }
            """, message: #"unexpected character '"', expected ',' or '}'"#, pointer: "", hint: "is a comma missing?"),
        SyntaxError(name: "missing comma between elements", source: #"{"list": [1 ⟨e⟩2]}"#,
                    message: "unexpected character '2', expected ',' or ']'", pointer: "/list"),
        SyntaxError(name: "trailing comma in an object", source: """
            {
              "a": 1,
            ⟨e⟩}
            """, message: "a comma before '}': JSON allows no trailing comma", pointer: "", hint: "remove the last comma"),
        SyntaxError(name: "trailing comma in an array", source: #"{"a": [1, 2, ⟨e⟩]}"#,
                    message: "a comma before ']': JSON allows no trailing comma", pointer: "/a/2", hint: "remove the last comma"),
        SyntaxError(name: "a line comment before a key", source: """
            {
              ⟨e⟩// v1
              "a": 1
            }
            """, message: "unexpected character '/', expected a key in double quotes", pointer: "",
                    hint: #"JSON has no comments; remove it"#),
        SyntaxError(name: "a block comment after a value", source: #"{"a": [1, 2] ⟨e⟩/* two */}"#,
                    message: "unexpected character '/', expected ',' or '}'", pointer: "",
                    hint: #"JSON has no comments; remove it"#),
        SyntaxError(name: "unterminated string at the end of the file", source: #"{"a": "abc⟨e⟩"#,
                    message: "unterminated string", pointer: "/a"),
        SyntaxError(name: "string broken by a line end", source: "{\"a\": \"abc⟨e⟩\n}",
                    message: #"control character in a string (write it as an escape such as \n)"#, pointer: "/a"),
        SyntaxError(name: "raw tab in a string", source: "[\"a⟨e⟩\tb\"]",
                    message: #"control character in a string (write it as an escape such as \n)"#, pointer: "/0"),
        SyntaxError(name: "bad escape", source: #"{"a": "x\⟨e⟩q"}"#, message: "invalid escape sequence in a string", pointer: "/a"),
        SyntaxError(name: "bad hex digit in a \\u escape", source: #"["\u12⟨e⟩G4"]"#,
                    message: #"invalid hexadecimal digit in a \u escape"#, pointer: "/0"),
        SyntaxError(name: "short \\u escape at the end", source: #"["\u⟨e⟩12"#, message: #"incomplete \u escape"#, pointer: "/0"),
        SyntaxError(name: "lone high surrogate", source: #"["\uD83D⟨e⟩x"]"#,
                    message: #"unpaired UTF-16 surrogate in a \u escape"#, pointer: "/0"),
        SyntaxError(name: "high surrogate followed by a non-surrogate", source: #"["\uD83D\u0041⟨e⟩"]"#,
                    message: #"unpaired UTF-16 surrogate in a \u escape"#, pointer: "/0"),
        SyntaxError(name: "lone low surrogate", source: #"["\uDE00⟨e⟩"]"#,
                    message: #"unpaired UTF-16 surrogate in a \u escape"#, pointer: "/0"),
        SyntaxError(name: "misspelt literal", source: #"{"a": tr⟨e⟩eu}"#,
                    message: "unexpected character 'e', expected 'true'", pointer: "/a"),
        SyntaxError(name: "capitalised literal", source: #"[⟨e⟩True]"#, message: "unexpected character 'T', expected a value", pointer: "/0"),
        SyntaxError(name: "truncated literal", source: #"[nul⟨e⟩]"#, message: "unexpected character ']', expected 'null'", pointer: "/0"),
        SyntaxError(name: "single quotes", source: #"{⟨e⟩'a': 1}"#,
                    message: "unexpected character ''', expected a key in double quotes", pointer: ""),
        SyntaxError(name: "missing colon", source: #"{"a" ⟨e⟩1}"#, message: #"unexpected character '1', expected ':' after key "a""#, pointer: "/a"),
        SyntaxError(name: "leading plus", source: #"[⟨e⟩+1]"#, message: "unexpected character '+', expected a value", pointer: "/0"),
        SyntaxError(name: "leading zero", source: #"[0⟨e⟩1]"#, message: "unexpected character '1', expected ',' or ']'", pointer: ""),
        SyntaxError(name: "decimal point without digits", source: #"[1.⟨e⟩]"#, message: "expected a digit after the decimal point", pointer: "/0"),
        SyntaxError(name: "exponent without digits", source: #"[1e⟨e⟩]"#, message: "expected a digit in the exponent", pointer: "/0"),
        SyntaxError(name: "minus alone", source: #"[-⟨e⟩]"#, message: "unexpected character ']' in a number", pointer: "/0"),
        SyntaxError(name: "unexpected end inside an object", source: "{\"a\": 1⟨e⟩", message: "unexpected end of file, expected ',' or '}'", pointer: ""),
        SyntaxError(name: "unexpected end after a key", source: "{\"a\":⟨e⟩", message: "unexpected end of file, expected a value", pointer: "/a"),
        SyntaxError(name: "unexpected end inside an array", source: "[1,\n  2⟨e⟩", message: "unexpected end of file, expected ',' or ']'", pointer: ""),
        SyntaxError(name: "two documents", source: "{}\n⟨e⟩{}", message: "unexpected character '{' after the end of the document", pointer: ""),
    ]

    @Test("syntax errors are reported once, at the exact line and column", arguments: syntaxErrors)
    func syntaxError(_ example: SyntaxError) throws {
        let source = MarkedSource(example.source)
        let diagnostics = failure(source)
        let diagnostic = try #require(diagnostics.first)
        #expect(diagnostics.count == 1)
        #expect(diagnostic.severity == .error)
        #expect(diagnostic.code == .invalidJSON)
        #expect(diagnostic.location == source.location("e"))
        #expect(diagnostic.message == example.message)
        #expect(diagnostic.pointer == example.pointer)
        #expect(diagnostic.hint == example.hint)
        #expect(diagnostic.file == "t.json")
    }

    @Test("pointers escape ~ and / in keys")
    func pointerEscaping() throws {
        let source = MarkedSource(#"{"a/b": {"c~d": ⟨e⟩x}}"#)
        let diagnostic = try #require(failure(source).first)
        #expect(diagnostic.pointer == "/a~1b/c~0d")
        #expect(diagnostic.location == source.location("e"))
        #expect(JSONPointer.append("/cases", 2) == "/cases/2")
        #expect(JSONPointer.append("", "a~/b") == "/a~0~1b")
    }

    // MARK: Empty input and encoding

    @Test("empty input and whitespace-only input are MX005", arguments: [
        ([], "1:1"), (Array(" \n\t ".utf8), "2:3"), ([0xEF, 0xBB, 0xBF], "1:1"),
    ] as [([UInt8], String)])
    func emptyInput(bytes: [UInt8], location: String) {
        let diagnostics = failure(bytes)
        #expect(diagnostics.summaries == ["\(location) error MX005 /"])
        #expect(diagnostics.first?.message == "the file is empty")
    }

    @Test("invalid UTF-8 inside a string is MX002 at the offending byte", arguments: [
        ([0xFF], "invalid UTF-8 byte 0xFF"),
        ([0xC3], "invalid UTF-8 sequence"),
        ([0xC3, 0x28], "invalid UTF-8 sequence"),
        ([0xC0, 0xAF], "invalid UTF-8 byte 0xC0"),  // overlong "/"
        ([0xE0, 0x80, 0xAF], "invalid UTF-8 sequence"),  // overlong "/"
        ([0xED, 0xA0, 0x80], "invalid UTF-8 sequence"),  // an encoded UTF-16 surrogate
        ([0xF4, 0x90, 0x80, 0x80], "invalid UTF-8 sequence"),  // above U+10FFFF
    ] as [([UInt8], String)])
    func invalidUTF8InString(bad: [UInt8], message: String) throws {
        let bytes = Array("{\n  \"name\": \"ab".utf8) + bad + Array("\"\n}".utf8)
        let diagnostics = failure(bytes)
        let diagnostic = try #require(diagnostics.first)
        #expect(diagnostics.summaries == ["2:14 error MX002 /name"])
        #expect(diagnostic.message == message)
        #expect(diagnostic.hint == "save the file as UTF-8")
    }

    @Test("a UTF-8 sequence cut off by the end of the file is MX002")
    func truncatedUTF8() {
        let diagnostics = failure(Array("[\"ab".utf8) + [0xE2, 0x82])
        #expect(diagnostics.summaries == ["1:5 error MX002 /0"])
        #expect(diagnostics.first?.message == "truncated UTF-8 sequence")
    }

    @Test("invalid UTF-8 outside strings is MX002 too", arguments: [
        [0xFF, 0xFE, 0x7B, 0x00, 0x7D, 0x00],  // UTF-16 little-endian with its byte order mark
        Array("{\"a\": ".utf8) + [0xA0] + Array("}".utf8),
    ])
    func invalidUTF8OutsideStrings(bytes: [UInt8]) throws {
        let diagnostic = try #require(failure(bytes).first)
        #expect(diagnostic.code == .invalidEncoding)
        #expect(diagnostic.hint == "save the file as UTF-8")
    }

    @Test("a control character is refused in a string but DEL is not")
    func controlCharacters() throws {
        for byte: UInt8 in [0x00, 0x01, 0x09, 0x0A, 0x0D, 0x1F] {
            let diagnostics = failure([0x5B, 0x22, 0x61, byte, 0x22, 0x5D])  // ["a?"]
            #expect(diagnostics.summaries == ["1:4 error MX001 /0"], "byte \(byte)")
        }
        let value = try JSONReader.parse([0x5B, 0x22, 0x7F, 0x22, 0x5D]).get()
        #expect(value.arrayValue?.first?.stringValue == "\u{7F}")
    }

    // MARK: Nesting

    @Test("nesting up to the maximum depth is read")
    func maximumDepthAccepted() throws {
        let depth = JSONReader.maximumDepth
        let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        var value = try JSONReader.parse(Array(text.utf8)).get()
        var levels = 1
        while let inner = value.arrayValue?.first {
            value = inner
            levels += 1
        }
        #expect(levels == depth)
    }

    @Test("one level deeper than the maximum is MX003 at the opening bracket")
    func oneTooDeep() throws {
        let depth = JSONReader.maximumDepth + 1
        let text = String(repeating: "{\"k\":", count: depth - 1) + "[" + String(repeating: "}", count: depth - 1) + "]"
        let diagnostics = failure(Array(text.utf8))
        let diagnostic = try #require(diagnostics.first)
        #expect(diagnostics.count == 1)
        #expect(diagnostic.code == .nestingTooDeep)
        #expect(diagnostic.location == .init(line: 1, column: 5 * (depth - 1) + 1))
        #expect(diagnostic.pointer == String(repeating: "/k", count: depth - 1))
        #expect(diagnostic.message == "arrays and objects nest deeper than \(JSONReader.maximumDepth) levels")
    }

    @Test("10,000 levels of nesting fail fast with MX003 instead of crashing", .timeLimit(.minutes(1)))
    func tenThousandLevels() throws {
        for opener in ["[", "{\"a\":"] {
            let text = String(repeating: opener, count: 10_000)
            let diagnostics = failure(Array(text.utf8))
            #expect(diagnostics.map(\.code) == [.nestingTooDeep])
            #expect(diagnostics.first?.location.column == opener.utf8.count * JSONReader.maximumDepth + 1)
        }
    }

    // MARK: Duplicate keys

    @Test("a duplicate key is an MX004 warning at the second key, and the last value wins")
    func duplicateKeys() throws {
        let source = MarkedSource("""
            {
              "a": 1,
              "b": {"x": true, ⟨x⟩"x": false},
              ⟨a⟩"a": 2
            }
            """)
        let result = JSONReader.read(source.bytes, file: "t.json")
        let root = try #require(result.value)
        #expect(root.objectValue?["a"]?.numberText == "2")
        #expect(root.objectValue?["b"]?.objectValue?["x"]?.boolValue == false)
        #expect(root.objectValue?.members.count == 3)
        #expect(root.objectValue?.keys == ["a", "b"])
        #expect(result.diagnostics.summaries == [
            "\(source.location("x").text) warning MX004 /b/x",
            "\(source.location("a").text) warning MX004 /a",
        ])
        #expect(result.diagnostics.first?.message == #"duplicate key "x"; the last one is used"#)
    }

    @Test("warnings found before a syntax error are reported with it")
    func warningsWithError() {
        let source = MarkedSource(#"{"a": 1, ⟨w⟩"a": 2, ⟨e⟩}"#)
        let diagnostics = failure(source)
        #expect(diagnostics.summaries == [
            "\(source.location("e").text) error MX001 /",
            "\(source.location("w").text) warning MX004 /a",
        ])
    }

    @Test("read returns the value and no diagnostics for a clean document, and no value after an error")
    func readResult() {
        let clean = JSONReader.read(Array("[1]".utf8), file: nil)
        #expect(clean.value?.arrayValue?.count == 1)
        #expect(clean.diagnostics.isEmpty)
        let broken = JSONReader.read(Array("[1".utf8), file: nil)
        #expect(broken.value == nil)
        #expect(broken.diagnostics.summaries == ["1:3 error MX001 /"])
    }
}
