import Foundation

/// `JSONEncoder` as evidence lines and signed payloads are specified: sorted keys, slashes unescaped. The
/// hand-written encoders are compared with it byte for byte.
public enum ReferenceEncoder {
    /// The bytes `JSONEncoder` writes for `value` with `[.sortedKeys, .withoutEscapingSlashes]`.
    public static func encode(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }
}
