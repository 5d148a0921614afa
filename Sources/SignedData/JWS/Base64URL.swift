import Foundation

/// base64url (RFC 4648 §5) as JWS uses it: `-` and `_` instead of `+` and `/`, no padding.
public enum Base64URL {
    /// Encodes bytes without padding.
    public static func encode(_ bytes: some DataProtocol) -> String {
        String(decoding: encodedBytes(bytes), as: UTF8.self)
    }

    /// Encodes bytes without padding, as ASCII bytes.
    static func encodedBytes(_ bytes: some DataProtocol) -> [UInt8] {
        var encoded = [UInt8](Data(bytes).base64EncodedData())
        while encoded.last == UInt8(ascii: "=") { encoded.removeLast() }
        for index in encoded.indices {
            switch encoded[index] {
            case UInt8(ascii: "+"): encoded[index] = UInt8(ascii: "-")
            case UInt8(ascii: "/"): encoded[index] = UInt8(ascii: "_")
            default: break
            }
        }
        return encoded
    }

    /// Decodes base64url text in its one canonical spelling: no `=` padding, no character outside the base64url
    /// alphabet (`+`, `/`, whitespace), and no set bits after the data in the last character.
    ///
    /// - Returns: The bytes, or `nil` when the text is not base64url.
    public static func decode(_ text: some StringProtocol) -> Data? {
        decode(bytes: Array(text.utf8))
    }

    /// Decodes base64url given as ASCII bytes; see ``decode(_:)``.
    static func decode(bytes: some Collection<UInt8>) -> Data? {
        var standard = [UInt8](bytes)
        // Compact serialization has no padding (RFC 7515 §2), and the unused low bits of the last character must
        // be zero (RFC 4648 §3.5): one value has one spelling, so evidence cannot be altered unnoticed.
        guard standard.last != UInt8(ascii: "="), standard.count % 4 != 1 else { return nil }
        if let last = standard.last, standard.count % 4 != 0 {
            let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
            guard let value = alphabet.firstIndex(of: last) else { return nil }
            let unusedBits = standard.count % 4 == 2 ? 4 : 2
            guard value & ((1 << unusedBits) - 1) == 0 else { return nil }
        }
        for index in standard.indices {
            switch standard[index] {
            case UInt8(ascii: "A") ... UInt8(ascii: "Z"), UInt8(ascii: "a") ... UInt8(ascii: "z"), UInt8(ascii: "0") ... UInt8(ascii: "9"):
                continue
            case UInt8(ascii: "-"): standard[index] = UInt8(ascii: "+")
            case UInt8(ascii: "_"): standard[index] = UInt8(ascii: "/")
            default: return nil
            }
        }
        standard.append(contentsOf: repeatElement(UInt8(ascii: "="), count: (4 - standard.count % 4) % 4))
        return Data(base64Encoded: Data(standard))
    }
}
