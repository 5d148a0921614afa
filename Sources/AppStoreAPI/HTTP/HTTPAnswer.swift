import Foundation

/// An HTTP answer: status, headers (names lower-cased) and body.
public struct HTTPAnswer: Sendable, Hashable {
    /// The HTTP status code.
    public var status: Int
    /// Header values by lower-cased name.
    public var headers: [String: String]
    /// The body bytes.
    public var body: Data

    /// Creates an answer.
    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { _, last in last })
        self.body = body
    }

    /// The value of the header `name` (any case).
    public func header(_ name: String) -> String? {
        headers[name.lowercased()]
    }

    /// Whether the status is 2xx.
    public var isSuccess: Bool { (200..<300).contains(status) }
}

/// Turns a decoding failure into a short description built from its coding path, never from Foundation's
/// text (which differs between platforms).
enum DecodingProblem {
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "the body is not JSON" }
        func path(_ keys: [any CodingKey]) -> String {
            keys.isEmpty ? "/" : "/" + keys.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: "/")
        }
        switch error {
        case .keyNotFound(let key, let context): return "missing \(path(context.codingPath + [key]))"
        case .typeMismatch(_, let context): return "wrong type at \(path(context.codingPath))"
        case .valueNotFound(_, let context): return "null at \(path(context.codingPath))"
        case .dataCorrupted(let context): return context.codingPath.isEmpty ? "the body is not JSON" : "invalid value at \(path(context.codingPath))"
        @unknown default: return "the body does not match"
        }
    }
}
