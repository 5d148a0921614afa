import Foundation

/// An HTTP/1.1 request as the loopback server received it, or as the loopback client sends it.
public struct HTTPRequest: Sendable, Hashable {
    /// `GET`, `POST`, …
    public var method: String
    /// The request target: the path with its query, e.g. `/inApps/v1/transactions/1?x=y`.
    public var target: String
    /// The header fields in the order they came; names keep their case, ``header(_:)`` ignores it.
    public var headers: [(name: String, value: String)]
    /// The body (empty when there is none).
    public var body: [UInt8]

    public init(method: String, target: String, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
    }

    /// The value of the first header field called `name`, compared without regard to case.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The target's path, percent-decoded segment by segment is the caller's business: this is the raw path.
    public var path: String {
        String(target.prefix { $0 != "?" })
    }

    /// The query's name–value pairs, percent-decoded, in order (`+` is a space, as forms write it).
    public var queryItems: [(name: String, value: String)] {
        guard let mark = target.firstIndex(of: "?") else { return [] }
        return target[target.index(after: mark)...].split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> String {
                let spaced = text.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }

    /// The values of query item `name`, in order.
    public func query(_ name: String) -> [String] {
        queryItems.filter { $0.name == name }.map(\.value)
    }

    public static func == (lhs: HTTPRequest, rhs: HTTPRequest) -> Bool {
        lhs.method == rhs.method && lhs.target == rhs.target && lhs.body == rhs.body
            && lhs.headers.map(\.name) == rhs.headers.map(\.name) && lhs.headers.map(\.value) == rhs.headers.map(\.value)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(method)
        hasher.combine(target)
        hasher.combine(body)
    }
}

/// An HTTP/1.1 response.
public struct HTTPResponse: Sendable, Hashable {
    /// The status code, 100–599.
    public var status: Int
    /// The header fields; `Content-Length` and `Connection` are written by the server itself.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response.
    public static func json(_ status: Int, _ body: some Sequence<UInt8>) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: Array(body))
    }

    /// The value of the first header field called `name`, compared without regard to case.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The body as UTF-8 text (invalid bytes replaced).
    public var text: String { String(decoding: body, as: UTF8.self) }

    public static func == (lhs: HTTPResponse, rhs: HTTPResponse) -> Bool {
        lhs.status == rhs.status && lhs.body == rhs.body
            && lhs.headers.map(\.name) == rhs.headers.map(\.name) && lhs.headers.map(\.value) == rhs.headers.map(\.value)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(status)
        hasher.combine(body)
    }

    /// The reason phrase written after a status code.
    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 411: "Length Required"
        case 413: "Content Too Large"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}

/// How much the loopback server and client read and how long they wait: everything that comes from the other
/// side is bounded.
public struct HTTPLimits: Sendable, Hashable {
    /// The request or status line and the header fields together, bytes.
    public var headerBytes: Int
    /// A body, bytes.
    public var bodyBytes: Int
    /// How long one exchange may take, from connecting (or accepting) to the last byte.
    public var timeout: Duration
    /// How long a server waits for a request's head (the request line and the header fields) after accepting
    /// the connection, within ``timeout``: a client that trickles its head gets 408 at this deadline and its
    /// connection is closed, instead of holding a connection for the whole of ``timeout``.
    public var headTimeout: Duration

    public init(headerBytes: Int = 16 << 10, bodyBytes: Int = 1 << 20, timeout: Duration = .seconds(30), headTimeout: Duration = .seconds(5)) {
        self.headerBytes = headerBytes
        self.bodyBytes = bodyBytes
        self.timeout = timeout
        self.headTimeout = headTimeout
    }
}
