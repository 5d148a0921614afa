/// Splits a byte stream into lines at `\n` (a `\r` before it is dropped), refusing lines longer than a limit.
///
/// Empty lines are dropped: the protocol ignores them.
public struct LineSplitter: Sendable {
    /// What the stream held.
    public enum Piece: Sendable, Hashable {
        /// A complete line, without its line end.
        case line([UInt8])
        /// A line longer than the limit: its first 256 bytes; the rest, up to the next `\n`, is discarded.
        case overlong(prefix: [UInt8])
    }

    /// The longest line accepted, in bytes.
    public let maximumLength: Int
    private var buffer: [UInt8] = []
    private var discarding = false

    /// A splitter refusing lines longer than `maximumLength` bytes (16 MiB by default).
    public init(maximumLength: Int = DriverProtocol.maximumLineBytes) {
        self.maximumLength = max(1, maximumLength)
    }

    /// Adds bytes; returns the pieces they complete.
    ///
    /// Each line is copied once into an array of its own, so that a line keeps no more memory than it needs
    /// however long earlier lines were.
    public mutating func append(_ bytes: some Collection<UInt8>) -> [Piece] {
        var pieces: [Piece] = []
        var start = bytes.startIndex
        while start != bytes.endIndex {
            guard let newline = bytes[start...].firstIndex(of: 0x0A) else {
                take(bytes[start...], into: &pieces)
                break
            }
            if buffer.isEmpty, !discarding, bytes.distance(from: start, to: newline) <= maximumLength {
                // The whole line is in this chunk.
                var line = Array(bytes[start..<newline])
                if line.last == 0x0D { line.removeLast() }
                if !line.isEmpty { pieces.append(.line(line)) }
            } else {
                take(bytes[start..<newline], into: &pieces)
                endLine(into: &pieces)
            }
            start = bytes.index(after: newline)
        }
        return pieces
    }

    /// Adds part of a line, or refuses the line once it is longer than the limit.
    private mutating func take(_ part: some Collection<UInt8>, into pieces: inout [Piece]) {
        if discarding || part.isEmpty { return }
        guard buffer.count + part.count <= maximumLength else {
            // As many bytes as were read up to passing the limit, at most 256.
            let kept = min(256, maximumLength + 1)
            pieces.append(.overlong(prefix: Array((buffer.prefix(kept) + part.prefix(kept)).prefix(kept))))
            buffer = []
            discarding = true
            return
        }
        buffer.append(contentsOf: part)
    }

    /// A `\n` ends the line being collected.
    private mutating func endLine(into pieces: inout [Piece]) {
        if discarding {
            discarding = false
            return
        }
        if buffer.last == 0x0D { buffer.removeLast() }
        if !buffer.isEmpty { pieces.append(.line(buffer)) }
        buffer = []
    }

    /// Ends the stream: a last line without `\n` is returned as a line.
    public mutating func finish() -> [Piece] {
        defer {
            buffer = []
            discarding = false
        }
        if buffer.last == 0x0D { buffer.removeLast() }
        return discarding || buffer.isEmpty ? [] : [.line(buffer)]
    }
}
