import Foundation
import Testing
import DriverKit

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

    @Test("any stream, cut into chunks anywhere, gives the pieces a byte-at-a-time reading gives")
    func chunkingDoesNotMatter() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("ab{}\"\r\n\n".utf8)
        for _ in 0..<500 {
            let limit = Int.random(in: 1...40, using: &generator)
            let stream = (0..<Int.random(in: 0...300, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
            var chunked = LineSplitter(maximumLength: limit)
            var pieces: [LineSplitter.Piece] = []
            var rest = stream[...]
            while !rest.isEmpty {
                let size = Int.random(in: 1...max(1, rest.count), using: &generator)
                pieces += chunked.append(rest.prefix(size))
                rest = rest.dropFirst(size)
            }
            pieces += chunked.finish()
            #expect(pieces == Self.byteAtATime(stream, limit: limit), "limit \(limit), stream \(String(decoding: stream, as: UTF8.self).debugDescription)")
        }
    }

    /// The reference reading: one byte at a time, a line refused once it passes the limit, its first
    /// min(256, limit + 1) bytes kept.
    static func byteAtATime(_ stream: [UInt8], limit: Int) -> [LineSplitter.Piece] {
        var pieces: [LineSplitter.Piece] = []
        var line: [UInt8] = []
        var discarding = false
        for byte in stream {
            if byte == 0x0A {
                if !discarding {
                    if line.last == 0x0D { line.removeLast() }
                    if !line.isEmpty { pieces.append(.line(line)) }
                }
                discarding = false
                line = []
            } else if !discarding {
                line.append(byte)
                if line.count > limit {
                    pieces.append(.overlong(prefix: Array(line.prefix(256))))
                    line = []
                    discarding = true
                }
            }
        }
        if line.last == 0x0D { line.removeLast() }
        if !discarding, !line.isEmpty { pieces.append(.line(line)) }
        return pieces
    }
}

/// Where ``LineReader`` blocks.
@Suite("Line reader")
struct LineReaderTests {
    @Test("a reader blocks in read() on a thread of its own, not on a dispatch worker: several drivers' readers do not starve dispatch's pool")
    func readsOnItsOwnThread() async throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        let (closed, signal) = AsyncStream.makeStream(of: String.self)
        let readEnd = ends[0]
        let lines = LineReader.lines(from: readEnd) {
            signal.yield(BlockingThread.currentName)
            signal.finish()
            close(readEnd)
        }
        let line = Array("{\"ok\": true}\n".utf8)
        #expect(line.withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) } == line.count)
        close(ends[1])
        var events: [LineEvent] = []
        for await event in lines { events.append(event) }
        #expect(events == [.line(Array("{\"ok\": true}".utf8)), .end])
        var names: [String] = []
        for await name in closed { names.append(name) }
        #expect(names == ["matrix-reader"])
    }
}
