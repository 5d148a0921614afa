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
    public mutating func append(_ bytes: some Collection<UInt8>) -> [Piece] {
        var pieces: [Piece] = []
        for byte in bytes {
            if byte == 0x0A {
                if discarding {
                    discarding = false
                } else {
                    if buffer.last == 0x0D { buffer.removeLast() }
                    if !buffer.isEmpty { pieces.append(.line(buffer)) }
                }
                buffer.removeAll(keepingCapacity: true)
                continue
            }
            if discarding { continue }
            buffer.append(byte)
            if buffer.count > maximumLength {
                pieces.append(.overlong(prefix: Array(buffer.prefix(256))))
                buffer = []
                discarding = true
            }
        }
        return pieces
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
