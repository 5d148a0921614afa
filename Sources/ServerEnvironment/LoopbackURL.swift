import Foundation

/// A URL on 127.0.0.1 that the `server` environment may send to: `http`, host `127.0.0.1` or `localhost`, an
/// explicit port (or `{port}`, the port the runner picks for `--server`), a path and query, no user or fragment.
/// The runner never sends anywhere else.
public struct LoopbackURL: Sendable, Hashable, CustomStringConvertible {
    /// The port, once `{port}` is filled in.
    public var port: UInt16
    /// The path and query, placeholders still in it.
    public var target: String
    /// The URL as given, `{port}` filled in.
    public var description: String { "http://127.0.0.1:\(port)\(target)" }

    /// The placeholders an access URL may hold, and what each stands for.
    public static let accessPlaceholders = ["account", "appAccountToken", "originalTransactionId"]

    /// Parses `text`; `{port}` becomes `pickedPort`, and `placeholders` lists the other `{name}`s allowed.
    ///
    /// - Throws: ``ServerSetupError`` naming the option and what is wrong: another scheme or host, no port,
    ///   `{port}` without `--server`, an unknown placeholder.
    public static func parse(_ text: String, option: String, pickedPort: UInt16?, placeholders: [String] = []) throws(ServerSetupError) -> LoopbackURL {
        let shown = Self.shown(text)
        guard text.hasPrefix("http://") else {
            let hint = text.hasPrefix("https://") ? " (the backend under test is reached in plain http on 127.0.0.1; TLS is not spoken)" : ""
            throw ServerSetupError("\(option) must be an http:// URL on 127.0.0.1, e.g. http://127.0.0.1:8080/notifications; got \(shown)\(hint)")
        }
        let rest = text.dropFirst("http://".count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        var target = String(rest.dropFirst(authority.count))
        if target.contains("#") { throw ServerSetupError("\(option) must not have a fragment (#…): \(shown)") }
        if target.isEmpty || target.hasPrefix("?") { target = "/" + target }
        guard !authority.contains("@") else { throw ServerSetupError("\(option) must not carry a user or password: \(shown)") }
        guard let colon = authority.lastIndex(of: ":") else {
            throw ServerSetupError("\(option) needs an explicit port, e.g. http://127.0.0.1:8080/…; got \(shown)")
        }
        let host = authority[..<colon].lowercased()
        guard host == "127.0.0.1" || host == "localhost" else {
            throw ServerSetupError("\(option) must name 127.0.0.1 or localhost: the runner sends only to this machine's loopback; got host \(Self.shown(String(host)))")
        }
        let portText = authority[authority.index(after: colon)...]
        let port: UInt16
        if portText == "{port}" {
            guard let pickedPort else {
                throw ServerSetupError("\(option): {port} is filled in only when --server starts the backend (the runner picks a free port and passes it as MATRIX_PORT)")
            }
            port = pickedPort
        } else {
            guard let value = UInt16(portText), value > 0 else { throw ServerSetupError("\(option): the port must be 1–65535, got \(Self.shown(String(portText)))") }
            port = value
        }
        for name in Self.placeholders(in: target) where !placeholders.contains(name) {
            let allowed = placeholders.isEmpty ? "none is allowed here" : "allowed: " + placeholders.map { "{\($0)}" }.joined(separator: ", ")
            throw ServerSetupError("\(option): unknown placeholder {\(String(Self.shown(name).dropFirst().dropLast()))} (\(allowed))")
        }
        guard target.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value < 0x7f }) else {
            throw ServerSetupError("\(option): the path and query must be printable ASCII without spaces (percent-encode the rest): \(shown)")
        }
        return LoopbackURL(port: port, target: target)
    }

    /// The `{name}`s in `text`.
    static func placeholders(in text: String) -> [String] {
        var names: [String] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            guard let close = rest[open...].firstIndex(of: "}") else { names.append(String(rest[rest.index(after: open)...])); break }
            names.append(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return names
    }

    /// The target with each `{name}` replaced by its value, percent-encoded (RFC 3986 unreserved characters
    /// stay as they are).
    public func filled(_ values: [String: String]) -> String {
        var result = target
        for (name, value) in values {
            let encoded = value.addingPercentEncoding(withAllowedCharacters: Self.unreserved) ?? ""
            result = result.replacingOccurrences(of: "{\(name)}", with: encoded)
        }
        return result
    }

    static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// Untrusted text for a message: at most 120 characters, control characters escaped.
    static func shown(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars.prefix(120) {
            result += scalar.value < 0x20 || scalar.value == 0x7f ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
        }
        return "\"" + result + (text.unicodeScalars.count > 120 ? "…" : "") + "\""
    }
}

/// The `server` environment cannot be set up as asked; the message names the option and what to do.
public struct ServerSetupError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
