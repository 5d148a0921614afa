/// Removes credentials from text that will be shown or stored: given secrets (the issuer id), anything
/// shaped like a JSON Web Token, and PEM private key blocks.
///
/// Applied to every text from outside (Apple's error messages, URL errors) before it enters an
/// ``AppStoreAPIError``.
public struct Redaction: Sendable {
    /// The replacement for a secret.
    public static let placeholder = "<redacted>"

    /// Exact strings to remove (empty strings are ignored).
    public let secrets: [String]

    /// A redaction of `secrets` and token-shaped text.
    public init(secrets: [String]) {
        self.secrets = secrets.filter { !$0.isEmpty }
    }

    /// `text` with every secret, JWT and private key block replaced by ``placeholder``.
    public func scrub(_ text: String) -> String {
        var result = Self.removingPrivateKeys(Self.removingTokens(text))
        for secret in secrets {
            result = result.replacingOccurrences(of: secret, with: Self.placeholder)
        }
        return result
    }

    /// Replaces each `eyJ….….…` (three base64url parts whose header starts as JSON does) with the placeholder.
    static func removingTokens(_ text: String) -> String {
        let characters = Array(text.unicodeScalars)
        var output = String.UnicodeScalarView()
        var index = 0
        while index < characters.count {
            if let end = tokenEnd(in: characters, from: index) {
                output.append(contentsOf: placeholder.unicodeScalars)
                index = end
            } else {
                output.append(characters[index])
                index += 1
            }
        }
        return String(output)
    }

    /// Where a JWT that starts at `start` ends, or `nil` when none starts there.
    private static func tokenEnd(in characters: [Unicode.Scalar], from start: Int) -> Int? {
        guard start + 3 <= characters.count, characters[start] == "e", characters[start + 1] == "y", characters[start + 2] == "J" else { return nil }
        if start > 0, isBase64URL(characters[start - 1]) { return nil }
        var index = start
        var dots = 0
        var partLength = 0
        while index < characters.count {
            let scalar = characters[index]
            if isBase64URL(scalar) {
                partLength += 1
            } else if scalar == ".", partLength > 0, dots < 2 {
                dots += 1
                partLength = 0
            } else {
                break
            }
            index += 1
        }
        return dots == 2 && partLength > 0 ? index : nil
    }

    private static func isBase64URL(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9", "-", "_": true
        default: false
        }
    }

    /// Replaces `-----BEGIN … PRIVATE KEY----- … -----END … PRIVATE KEY-----` blocks with the placeholder.
    static func removingPrivateKeys(_ text: String) -> String {
        var result = text
        while let begin = result.range(of: "-----BEGIN"),
              let label = result.range(of: "PRIVATE KEY-----", range: begin.upperBound..<result.endIndex) {
            let end = result.range(of: "PRIVATE KEY-----", range: label.upperBound..<result.endIndex)?.upperBound ?? result.endIndex
            result.replaceSubrange(begin.lowerBound..<end, with: placeholder)
        }
        return result
    }
}
