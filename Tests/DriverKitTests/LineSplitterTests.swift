import DriverKit
import Testing

@Suite("Line splitter")
struct LineSplitterTests {
    func lines(_ pieces: [LineSplitter.Piece]) -> [String] {
        pieces.map { piece in
            switch piece {
            case .line(let bytes): String(decoding: bytes, as: UTF8.self)
            case .overlong(let prefix): "OVERLONG:" + String(decoding: prefix, as: UTF8.self)
            }
        }
    }

    @Test("lines split at LF, a CR before it is dropped, empty lines are skipped, chunks join")
    func splitsLines() {
        var splitter = LineSplitter()
        var out = lines(splitter.append(Array("{\"a\":1}\r\n\n{\"b\"".utf8)))
        #expect(out == [#"{"a":1}"#])
        out = lines(splitter.append(Array(":2}\n".utf8)))
        #expect(out == [#"{"b":2}"#])
        #expect(lines(splitter.append(Array("tail".utf8))).isEmpty)
        #expect(lines(splitter.finish()) == ["tail"])
        #expect(splitter.finish().isEmpty)
    }

    @Test("a line over the limit is reported once, by its first bytes, and the rest up to LF is dropped")
    func refusesOverlongLines() {
        var splitter = LineSplitter(maximumLength: 8)
        let out = lines(splitter.append(Array("0123456789abcdef\nok\n".utf8)))
        #expect(out == ["OVERLONG:012345678", "ok"])
        #expect(lines(splitter.append(Array("0123456789".utf8))) == ["OVERLONG:012345678"])
        #expect(splitter.finish().isEmpty)
    }
}
