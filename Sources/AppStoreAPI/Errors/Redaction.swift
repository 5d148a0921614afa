/// Removes credentials and personal data from text that will be shown or stored: given secrets (the issuer
/// id), anything shaped like a JSON Web Token or a private key, and e-mail addresses.
///
/// Applied to every text from outside (Apple's error messages, URL errors) before it enters an
/// ``AppStoreAPIError``. What it finds:
/// - each secret in any letter case, and without its dashes (an issuer id written as 32 hex digits);
/// - a JWT: `eyJ…` (base64url of JSON) followed by `.` parts, signed (`header.payload.signature`) or not
///   (`header.payload`, `header.payload.`), and one cut short: a lone `eyJ…` part of 20 characters or more;
/// - a private key: a `-----BEGIN … PRIVATE KEY-----` block, and a key's base64 body without its armour (a
///   PKCS #8 or SEC 1 EC key, `MIG…` / `MHcCAQEE…`, 40 characters or more, over line breaks);
/// - an e-mail address (`name@domain.tld`): a Sandbox Apple Account is a person's address.
public struct Redaction: Sendable {
    /// The replacement for a secret.
    public static let placeholder = "<redacted>"
    /// The replacement for an e-mail address.
    public static let emailPlaceholder = "<e-mail address>"

    /// Exact strings to remove (empty strings are ignored).
    public let secrets: [String]

    /// A redaction of `secrets` and token-shaped text.
    public init(secrets: [String]) {
        self.secrets = secrets.filter { !$0.isEmpty }
    }

    /// `text` with every secret, JWT and private key replaced by ``placeholder`` and every e-mail address by
    /// ``emailPlaceholder``.
    public func scrub(_ text: String) -> String {
        var result = Self.removingEmailAddresses(Self.removingKeyBodies(Self.removingPrivateKeys(Self.removingTokens(text))))
        for secret in secrets {
            let undashed = secret.replacingOccurrences(of: "-", with: "")
            for variant in [secret, undashed] where !variant.isEmpty {
                result = result.replacingOccurrences(of: variant, with: Self.placeholder, options: [.caseInsensitive])
            }
        }
        return result
    }

    /// Replaces each JWT, signed, unsigned or cut short (see the type's summary), with the placeholder.
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
        guard startsJSON(characters, at: start) else { return nil }
        if start > 0, isBase64URL(characters[start - 1]) { return nil }
        var index = start
        var parts: [Int] = [start]   // where each part starts
        while index < characters.count {
            let scalar = characters[index]
            if isBase64URL(scalar) {
                index += 1
            } else if scalar == ".", parts.count < 3, index > parts[parts.count - 1] {
                index += 1
                parts.append(index)
            } else {
                break
            }
        }
        let firstLength = (parts.count > 1 ? parts[1] - 1 : index) - start
        let signed = parts.count == 3 && index > parts[2]
        let unsigned = parts.count >= 2 && startsJSON(characters, at: parts[1])
        return signed || unsigned || firstLength >= 20 ? index : nil
    }

    private static func startsJSON(_ characters: [Unicode.Scalar], at start: Int) -> Bool {
        start + 3 <= characters.count && characters[start] == "e" && characters[start + 1] == "y" && characters[start + 2] == "J"
    }

    private static func isBase64URL(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9", "-", "_": true
        default: false
        }
    }

    private static func isBase64(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9", "+", "/", "=": true
        default: false
        }
    }

    /// Replaces the base64 body of an EC private key that lost its PEM armour: a run of base64 (line breaks
    /// allowed) of 40 characters or more that starts as a PKCS #8 (`MIG`) or SEC 1 (`MHcCAQEE`) key does.
    static func removingKeyBodies(_ text: String) -> String {
        let characters = Array(text.unicodeScalars)
        var output = String.UnicodeScalarView()
        var index = 0
        while index < characters.count {
            let boundary = index == 0 || !isBase64(characters[index - 1])
            if boundary, starts(characters, at: index, with: "MIG") || starts(characters, at: index, with: "MHcCAQEE") {
                var end = index
                var count = 0
                while end < characters.count, isBase64(characters[end]) || characters[end] == "\n" || characters[end] == "\r" {
                    if isBase64(characters[end]) { count += 1 }
                    end += 1
                }
                while end > index, characters[end - 1] == "\n" || characters[end - 1] == "\r" { end -= 1 }
                if count >= 40 {
                    output.append(contentsOf: placeholder.unicodeScalars)
                    index = end
                    continue
                }
            }
            output.append(characters[index])
            index += 1
        }
        return String(output)
    }

    private static func starts(_ characters: [Unicode.Scalar], at start: Int, with prefix: String) -> Bool {
        let scalars = Array(prefix.unicodeScalars)
        return start + scalars.count <= characters.count && Array(characters[start..<start + scalars.count]) == scalars
    }

    /// Replaces every `local@domain.tld` with ``emailPlaceholder``.
    static func removingEmailAddresses(_ text: String) -> String {
        guard text.contains("@") else { return text }
        let address = #/[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(\.[A-Za-z0-9\-]+)+/#
        return text.replacing(address, with: emailPlaceholder)
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
