/// Writes compact JSON into a byte buffer exactly as `JSONEncoder` with `[.sortedKeys, .withoutEscapingSlashes]`
/// writes it on this platform, field by field, without building a tree of values first.
///
/// The caller writes each object's members in key order (keys compared byte by byte in UTF-8, which is the
/// order `JSONEncoder` sorts keys in) and leaves out `nil` optionals, as synthesised `Codable` conformances do.
/// Strings are escaped as `JSONEncoder` escapes them: `"` and `\` with a backslash; newline, carriage return,
/// tab, backspace and form feed by their short escapes; other control characters as `\u00xx`; everything else,
/// `/` and non-ASCII text included, as is.
public struct CompactJSONWriter {
    /// The JSON written so far.
    public var bytes: [UInt8] { storage }
    @usableFromInline var storage: [UInt8] = []
    /// Whether the innermost open object or array has no member yet.
    @usableFromInline var empty = true

    public init(capacity: Int = 1 << 13) {
        storage.reserveCapacity(capacity)
    }

    // MARK: Containers

    /// Opens an object; call ``endObject()`` after its members.
    @inlinable public mutating func beginObject() {
        storage.append(UInt8(ascii: "{"))
        empty = true
    }

    @inlinable public mutating func endObject() {
        storage.append(UInt8(ascii: "}"))
        empty = false
    }

    /// Opens an array; call ``endArray()`` after its elements, each begun with ``element()``.
    @inlinable public mutating func beginArray() {
        storage.append(UInt8(ascii: "["))
        empty = true
    }

    @inlinable public mutating func endArray() {
        storage.append(UInt8(ascii: "]"))
        empty = false
    }

    /// Ends a line of JSON Lines: a newline after the value.
    @inlinable public mutating func endLine() {
        storage.append(0x0A)
        empty = true
    }

    /// Starts the next element of an array.
    @inlinable public mutating func element() {
        if !empty { storage.append(UInt8(ascii: ",")) }
        empty = false
    }

    /// Starts the member `name` of an object: `"name":`, after a comma unless it is the first.
    @inlinable public mutating func key(_ name: StaticString) {
        if !empty { storage.append(UInt8(ascii: ",")) }
        empty = false
        storage.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { storage.append(contentsOf: $0) }
        storage.append(UInt8(ascii: "\""))
        storage.append(UInt8(ascii: ":"))
    }

    /// Starts a member whose name is data (a dictionary key), escaped like any string.
    @inlinable public mutating func key(_ name: String) {
        if !empty { storage.append(UInt8(ascii: ",")) }
        empty = false
        string(name)
        storage.append(UInt8(ascii: ":"))
    }

    // MARK: Values

    @inlinable public mutating func string(_ value: String) {
        storage.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var start = 0
            var index = 0
            let count = utf8.count
            while index < count {
                // Eight bytes at a time while none of them needs escaping (most text, and all of a JWS).
                if index + 8 <= count,
                   !Self.needsEscape(UnsafeRawPointer(utf8.baseAddress.unsafelyUnwrapped).loadUnaligned(fromByteOffset: index, as: UInt64.self)) {
                    index += 8
                    continue
                }
                let byte = utf8[index]
                if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                    storage.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                    escape(byte)
                    start = index + 1
                }
                index += 1
            }
            storage.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        storage.append(UInt8(ascii: "\""))
    }

    /// Whether any of the eight bytes in `word` is a control character, `"` or `\`.
    @inlinable static func needsEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        // A byte below 0x20 (bytes of 0x80 and above never count), or a zero byte after XOR with `"` or `\`.
        let control = (word &- ones &* 0x20) & ~word & highs
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        return control | ((quote &- ones) & ~quote & highs) | ((backslash &- ones) & ~backslash & highs) != 0
    }

    @inlinable public mutating func int<Integer: BinaryInteger>(_ value: Integer) {
        if let small = Int64(exactly: value) {
            int64(small)
        } else {
            storage.append(contentsOf: String(value).utf8)
        }
    }

    /// Decimal digits without an intermediate string.
    @usableFromInline mutating func int64(_ value: Int64) {
        storage.appendDecimal(value)
    }

    @inlinable public mutating func bool(_ value: Bool) {
        let text: StaticString = value ? "true" : "false"
        text.withUTF8Buffer { storage.append(contentsOf: $0) }
    }

    /// An array of strings.
    @inlinable public mutating func strings(_ values: [String]) {
        beginArray()
        for value in values {
            element()
            string(value)
        }
        endArray()
    }

    /// The member `name` written by `write`.
    @inlinable public mutating func member(_ name: StaticString, _ write: (inout CompactJSONWriter) -> Void) {
        key(name)
        write(&self)
    }

    /// The member `name` with a string value; nothing when the value is `nil`.
    @inlinable public mutating func field(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        key(name)
        string(value)
    }

    /// The member `name` with an integer value; nothing when the value is `nil`.
    @inlinable public mutating func field<Integer: BinaryInteger>(_ name: StaticString, _ value: Integer?) {
        guard let value else { return }
        key(name)
        int(value)
    }

    /// The member `name` with a Boolean value; nothing when the value is `nil`.
    @inlinable public mutating func field(_ name: StaticString, _ value: Bool?) {
        guard let value else { return }
        key(name)
        bool(value)
    }

    /// The member `name` with an array of strings; nothing when the value is `nil`.
    @inlinable public mutating func field(_ name: StaticString, _ value: [String]?) {
        guard let value else { return }
        key(name)
        strings(value)
    }

    /// The member `name` with a dictionary as an object; nothing when the value is `nil`.
    @inlinable public mutating func field<Value>(_ name: StaticString, _ value: [String: Value]?, _ write: (inout CompactJSONWriter, Value) -> Void) {
        guard let value else { return }
        key(name)
        object(value, write)
    }

    /// A dictionary as an object, keys in `JSONEncoder`'s sorted order.
    @inlinable public mutating func object<Value>(_ dictionary: [String: Value], _ write: (inout CompactJSONWriter, Value) -> Void) {
        beginObject()
        // The members sorted as pairs: sorting the keys and looking each one up again hashed every key once more.
        for (key, value) in dictionary.sorted(by: { Self.keyOrder($0.key, $1.key) }) {
            self.key(key)
            write(&self, value)
        }
        endObject()
    }

    /// `JSONEncoder`'s order of sorted keys here: byte by byte in UTF-8, a shorter key before the longer one it
    /// starts. (`String`'s own `<` is not it: it compares canonically equivalent text as equal.)
    @inlinable public static func keyOrder(_ a: String, _ b: String) -> Bool {
        var a = a
        var b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                let common = min(x.count, y.count)
                var index = 0
                while index < common {
                    if x[index] != y[index] { return x[index] < y[index] }
                    index += 1
                }
                return x.count < y.count
            }
        }
    }

    @usableFromInline mutating func escape(_ byte: UInt8) {
        storage.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): storage.append(byte)
        case 0x0A: storage.append(UInt8(ascii: "n"))
        case 0x0D: storage.append(UInt8(ascii: "r"))
        case 0x09: storage.append(UInt8(ascii: "t"))
        case 0x08: storage.append(UInt8(ascii: "b"))
        case 0x0C: storage.append(UInt8(ascii: "f"))
        default:
            let hex: [UInt8] = Array("0123456789abcdef".utf8)
            storage.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
        }
    }
}
