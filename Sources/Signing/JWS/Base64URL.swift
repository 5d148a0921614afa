import Foundation

/// base64url (RFC 4648 §5) as JWS uses it: `-` and `_` instead of `+` and `/`, no padding.
public enum Base64URL {
    /// Encodes bytes without padding.
    public static func encode(_ bytes: some DataProtocol) -> String {
        String(decoding: encodedBytes(bytes), as: UTF8.self)
    }

    /// Encodes bytes without padding, as ASCII bytes.
    static func encodedBytes(_ bytes: some DataProtocol) -> [UInt8] {
        var encoded: [UInt8] = []
        append(bytes, to: &encoded)
        return encoded
    }

    /// Appends the encoding of `bytes`, without padding, to `encoded`.
    static func append(_ bytes: some DataProtocol, to encoded: inout [UInt8]) {
        if let done = bytes.withContiguousStorageIfAvailable({ append(contiguous: UnsafeRawBufferPointer($0), to: &encoded) }) {
            return done
        }
        let copy = [UInt8](bytes)
        copy.withUnsafeBytes { append(contiguous: $0, to: &encoded) }
    }

    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static func append(contiguous input: UnsafeRawBufferPointer, to encoded: inout [UInt8]) {
        let count = input.count
        let length = count / 3 * 4 + [0, 2, 3][count % 3]
        let start = encoded.count
        encoded.append(contentsOf: repeatElement(0, count: length))
        alphabet.withUnsafeBufferPointer { alphabet in
            encoded.withUnsafeMutableBufferPointer { output in
                var out = start
                var index = 0
                while index + 3 <= count {
                    let word = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
                    output[out] = alphabet[Int(word >> 18)]
                    output[out + 1] = alphabet[Int(word >> 12 & 0x3F)]
                    output[out + 2] = alphabet[Int(word >> 6 & 0x3F)]
                    output[out + 3] = alphabet[Int(word & 0x3F)]
                    out += 4
                    index += 3
                }
                switch count - index {
                case 2:
                    let word = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
                    output[out] = alphabet[Int(word >> 18)]
                    output[out + 1] = alphabet[Int(word >> 12 & 0x3F)]
                    output[out + 2] = alphabet[Int(word >> 6 & 0x3F)]
                case 1:
                    let word = UInt32(input[index]) << 16
                    output[out] = alphabet[Int(word >> 18)]
                    output[out + 1] = alphabet[Int(word >> 12 & 0x3F)]
                default:
                    break
                }
            }
        }
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
