import Foundation

/// Why an HTTP message could not be read.
public enum HTTPWireFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The connection failed, closed or timed out.
    case socket(SocketProblem)
    /// The other side closed the connection before sending anything.
    case closedBeforeMessage
    /// The other side closed the connection in the middle of a message.
    case closedInMessage
    /// What came is not HTTP/1.1 as RFC 9112 writes it; the text says what.
    case malformed(String)
    /// What came is larger than the limits allow; the text says what.
    case tooLarge(String)
    /// The exchange was cancelled before it ended (the task that waited for it was cancelled).
    case cancelled

    /// A socket problem, named without the socket type.
    public enum SocketProblem: Sendable, Hashable {
        case refused
        case timedOut
        case reset
        case system(String)
    }

    init(_ failure: LoopbackSocket.Failure) {
        switch failure {
        case .refused: self = .socket(.refused)
        case .timedOut: self = .socket(.timedOut)
        case .closed: self = .socket(.reset)
        case .system(let text): self = .socket(.system(text))
        case .cancelled: self = .cancelled
        }
    }

    public var description: String {
        switch self {
        case .socket(.refused): "connection refused (nothing listens on the port)"
        case .socket(.timedOut): "timed out"
        case .socket(.reset): "the connection was reset"
        case .socket(.system(let text)): text
        case .closedBeforeMessage: "the connection closed before anything was sent"
        case .closedInMessage: "the connection closed in the middle of the message"
        case .malformed(let text): "not HTTP/1.1: \(text)"
        case .tooLarge(let text): text
        case .cancelled: "cancelled"
        }
    }
}

/// Reads HTTP/1.1 messages from a socket: the head up to its blank line, then a body by `Content-Length`, by
/// chunks, or to the end of the stream, each within ``HTTPLimits``.
struct HTTPWireReader {
    let socket: LoopbackSocket
    let limits: HTTPLimits
    let deadline: ContinuousClock.Instant
    /// When the head must have arrived (a server reading a request), if sooner than ``deadline``.
    var headDeadline: ContinuousClock.Instant?
    private var buffer: [UInt8] = []
    /// Whether any byte arrived.
    private(set) var sawBytes = false
    /// Whether the head is being read (``headDeadline`` applies).
    private var readingHead = false

    init(socket: LoopbackSocket, limits: HTTPLimits, deadline: ContinuousClock.Instant, headDeadline: ContinuousClock.Instant? = nil) {
        self.socket = socket
        self.limits = limits
        self.deadline = deadline
        self.headDeadline = headDeadline
    }

    /// More bytes into the buffer; `false` at the end of the stream.
    private mutating func fill() throws(HTTPWireFailure) -> Bool {
        let bytes: [UInt8]
        let until = readingHead ? min(deadline, headDeadline ?? deadline) : deadline
        do {
            bytes = try socket.read(maximum: 16 << 10, until: until)
        } catch {
            throw HTTPWireFailure(error)
        }
        if bytes.isEmpty { return false }
        sawBytes = true
        buffer += bytes
        return true
    }

    /// The head's lines (start line first), without their CRLFs.
    mutating func readHead() throws(HTTPWireFailure) -> [String] {
        readingHead = true
        defer { readingHead = false }
        var searchFrom = 0
        while true {
            if let end = Self.find([13, 10, 13, 10], in: buffer, from: searchFrom) {
                guard end <= limits.headerBytes else { throw .tooLarge("the head is over \(limits.headerBytes) bytes") }
                let head = Array(buffer[..<end])
                buffer.removeFirst(end + 4)
                guard let text = String(validating: head, as: UTF8.self) else { throw .malformed("the head is not UTF-8") }
                return text.components(separatedBy: "\r\n")
            }
            guard buffer.count <= limits.headerBytes else { throw .tooLarge("the head is over \(limits.headerBytes) bytes") }
            searchFrom = max(0, buffer.count - 3)
            guard try fill() else { throw sawBytes ? .closedInMessage : .closedBeforeMessage }
        }
    }

    /// Exactly `count` bytes of body.
    mutating func readBody(length count: Int) throws(HTTPWireFailure) -> [UInt8] {
        guard count >= 0 else { throw .malformed("a body length is negative") }
        guard count <= limits.bodyBytes else { throw .tooLarge("the body is \(count) bytes, over the limit of \(limits.bodyBytes)") }
        while buffer.count < count {
            guard try fill() else { throw .closedInMessage }
        }
        let body = Array(buffer.prefix(count))
        buffer.removeFirst(count)
        return body
    }

    /// A chunked body (RFC 9112 §7.1), trailers read and dropped.
    ///
    /// A chunk size is 1 to 8 hexadecimal digits (`chunk-size = 1*HEXDIG`): no sign, no space inside, nothing a
    /// number parser would also take. Trailers together are held to the head's limit.
    mutating func readChunkedBody() throws(HTTPWireFailure) -> [UInt8] {
        var body: [UInt8] = []
        while true {
            let line = try readLine()
            let sizeText = line.prefix { $0 != ";" }.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
            guard let size = HTTPWire.hexadecimal(sizeText) else {
                throw .malformed("a chunk size is not 1 to 8 hexadecimal digits: \(HTTPWire.excerpt(line))")
            }
            if size == 0 {
                var trailerBytes = 0
                while true {
                    let trailer = try readLine()
                    if trailer.isEmpty { return body }
                    trailerBytes += trailer.utf8.count + 2
                    guard trailerBytes <= limits.headerBytes else { throw .tooLarge("the trailers are over \(limits.headerBytes) bytes") }
                }
            }
            // Both sides are at most the limit, so the subtraction cannot overflow.
            guard size <= limits.bodyBytes - body.count else { throw .tooLarge("the body is over the limit of \(limits.bodyBytes) bytes") }
            body += try readBody(length: size)
            guard try readLine().isEmpty else { throw .malformed("a chunk does not end with CRLF") }
        }
    }

    /// Everything up to the end of the stream.
    mutating func readToEnd() throws(HTTPWireFailure) -> [UInt8] {
        while try fill() {
            guard buffer.count <= limits.bodyBytes else { throw .tooLarge("the body is over the limit of \(limits.bodyBytes) bytes") }
        }
        defer { buffer = [] }
        return buffer
    }

    private mutating func readLine() throws(HTTPWireFailure) -> String {
        while true {
            if let end = Self.find([13, 10], in: buffer, from: 0) {
                let line = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeFirst(end + 2)
                return line
            }
            guard buffer.count <= limits.headerBytes else { throw .tooLarge("a chunk line is over \(limits.headerBytes) bytes") }
            guard try fill() else { throw .closedInMessage }
        }
    }

    func write(_ bytes: [UInt8]) throws(HTTPWireFailure) {
        do {
            try socket.write(bytes, until: deadline)
        } catch {
            throw HTTPWireFailure(error)
        }
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        var index = start
        while index <= haystack.count - needle.count {
            if haystack[index] == needle[0], Array(haystack[index ..< index + needle.count]) == needle { return index }
            index += 1
        }
        return nil
    }
}

/// Parsing and writing HTTP/1.1 heads.
enum HTTPWire {
    /// The header fields of a head's lines after the start line.
    static func fields(_ lines: ArraySlice<String>) throws(HTTPWireFailure) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { throw .malformed("a header line has no colon: \(excerpt(line))") }
            let name = String(line[..<colon])
            guard !name.isEmpty, name.unicodeScalars.allSatisfy(isTokenCharacter) else {
                throw .malformed("a header name is not a token: \(excerpt(name))")
            }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
            guard !value.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" || $0.value == 0x7f }) else {
                throw .malformed("the value of \(name) has a control character")
            }
            fields.append((name, value))
            guard fields.count <= 100 else { throw .tooLarge("more than 100 header fields") }
        }
        return fields
    }

    /// How long the body is, from the header fields: a length, chunked, or (for responses only) to the end.
    enum Framing: Equatable {
        case length(Int)
        case chunked
        case toEnd
    }

    static func framing(_ fields: [(name: String, value: String)], isResponse: Bool) throws(HTTPWireFailure) -> Framing {
        let encodings = fields.filter { $0.name.caseInsensitiveCompare("Transfer-Encoding") == .orderedSame }.map(\.value)
        let lengths = fields.filter { $0.name.caseInsensitiveCompare("Content-Length") == .orderedSame }.map(\.value)
        if !encodings.isEmpty {
            // RFC 9112 §6.3: a message with both is an error worth refusing (request smuggling).
            guard lengths.isEmpty else { throw .malformed("both Transfer-Encoding and Content-Length") }
            guard encodings.count == 1, encodings[0].lowercased() == "chunked" else {
                throw .malformed("unsupported Transfer-Encoding \(excerpt(encodings.joined(separator: ", ")))")
            }
            return .chunked
        }
        guard let first = lengths.first else { return isResponse ? .toEnd : .length(0) }
        // `Content-Length = 1*DIGIT` (RFC 9110 §8.6): no sign, no space, at most 12 digits.
        guard lengths.allSatisfy({ $0 == first }), let length = decimal(first, digits: 12) else {
            throw .malformed("Content-Length is not one number: \(excerpt(lengths.joined(separator: ", ")))")
        }
        return .length(length)
    }

    /// The value of 1 to `digits` ASCII decimal digits, or `nil` for anything else (a sign, a space, another
    /// digit set): `Int(_:)` alone also takes `+1` and `-1`.
    static func decimal(_ text: some StringProtocol, digits: Int) -> Int? {
        guard !text.isEmpty, text.utf8.count <= digits, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int(text)
    }

    /// The value of 1 to 8 ASCII hexadecimal digits, or `nil` for anything else.
    static func hexadecimal(_ text: some StringProtocol) -> Int? {
        let isHex: (UInt8) -> Bool = { (0x30...0x39).contains($0) || (0x41...0x46).contains($0) || (0x61...0x66).contains($0) }
        guard !text.isEmpty, text.utf8.count <= 8, text.utf8.allSatisfy(isHex) else { return nil }
        return Int(text, radix: 16)
    }

    static func isTokenCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "!#$%&'*+-.^_`|~".unicodeScalars.contains(scalar))
    }

    /// At most 80 characters of untrusted text, control characters shown as `\u{…}`, for messages.
    static func excerpt(_ text: some StringProtocol) -> String {
        var result = ""
        for scalar in text.unicodeScalars.prefix(80) {
            result += scalar.value < 0x20 || scalar.value == 0x7f ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
        }
        return text.unicodeScalars.count > 80 ? result + "…" : result
    }

    /// A head: the start line and the fields, each line ended by CRLF, then the blank line.
    static func head(_ startLine: String, _ fields: [(name: String, value: String)]) -> [UInt8] {
        var text = startLine + "\r\n"
        for field in fields { text += "\(field.name): \(field.value)\r\n" }
        return Array((text + "\r\n").utf8)
    }
}
