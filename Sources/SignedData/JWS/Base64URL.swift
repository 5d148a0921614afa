import Foundation

/// base64url (RFC 4648 §5) as JWS uses it: `-` and `_` instead of `+` and `/`, no padding.
public enum Base64URL {
    /// Encodes bytes without padding.
    public static func encode(_ bytes: some DataProtocol) -> String {
        var text = Data(bytes).base64EncodedString()
        while text.last == "=" { text.removeLast() }
        return String(text.map { character -> Character in
            switch character {
            case "+": "-"
            case "/": "_"
            default: character
            }
        })
    }

    /// Decodes base64url text; trailing `=` padding is tolerated, any other character outside the
    /// base64url alphabet (including `+`, `/` and whitespace) is not.
    ///
    /// - Returns: The bytes, or `nil` when the text is not base64url.
    public static func decode(_ text: some StringProtocol) -> Data? {
        var body = Substring(text)
        while body.last == "=" { body.removeLast() }
        guard body.count % 4 != 1 else { return nil }
        var standard = ""
        standard.reserveCapacity(body.utf8.count + 3)
        for scalar in body.unicodeScalars {
            switch scalar {
            case "A" ... "Z", "a" ... "z", "0" ... "9": standard.unicodeScalars.append(scalar)
            case "-": standard.append("+")
            case "_": standard.append("/")
            default: return nil
            }
        }
        standard.append(String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4))
        return Data(base64Encoded: standard)
    }
}
