import Foundation

/// One request to an API, before authorization: method, path below the base URL, query and JSON body.
public struct APIRequest: Sendable, Hashable {
    /// `GET`, `POST`, `PATCH`.
    public var method: String
    /// The path below the base URL, starting with `/`, with any identifiers already escaped; it may end with
    /// an already percent-encoded `?query` (a `links.next` continuation).
    public var path: String
    /// Query items in order; a name may repeat (`productType=…&productType=…`).
    public var query: [URLQueryItem]
    /// The JSON body, if any.
    public var body: Data?
    /// Whether sending the request twice is harmless, so a timeout or dropped connection may be retried.
    public var isIdempotent: Bool
    /// The endpoint for messages, with placeholders instead of ids (`GET /inApps/v1/transactions/{transactionId}`).
    public var endpoint: String

    /// Creates a request.
    public init(method: String, path: String, query: [URLQueryItem] = [], body: Data? = nil, isIdempotent: Bool? = nil, endpoint: String? = nil) {
        self.method = method
        self.path = path
        self.query = query
        self.body = body
        self.isIdempotent = isIdempotent ?? (method == "GET")
        self.endpoint = endpoint ?? "\(method) \(path)"
    }

    /// `value` escaped as one path segment: everything but letters, digits, `-`, `.`, `_` and `~` is
    /// percent-encoded, so an id can never add a path segment or a query.
    public static func pathSegment(_ value: String) -> String {
        var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    /// The full URL below `baseURL` (whose own path, if any, is kept as a prefix).
    func url(relativeTo baseURL: URL) -> URL? {
        guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) else { return nil }
        var prefix = components.percentEncodedPath
        while prefix.hasSuffix("/") { prefix.removeLast() }
        let pathPart = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        components.percentEncodedPath = prefix + pathPart[0]
        var encodedQuery: [String] = []
        if pathPart.count > 1, !pathPart[1].isEmpty { encodedQuery.append(String(pathPart[1])) }
        if !query.isEmpty {
            var items = URLComponents()
            items.queryItems = query
            // `+` is legal in a query but many servers read it as a space; encode it.
            if let text = items.percentEncodedQuery { encodedQuery.append(text.replacingOccurrences(of: "+", with: "%2B")) }
        }
        components.percentEncodedQuery = encodedQuery.isEmpty ? nil : encodedQuery.joined(separator: "&")
        return components.url
    }
}
