import MatrixJSON

/// Report text built as UTF-8 bytes: literals, numbers and values escaped as ``Markup`` escapes them, appended
/// in place with no intermediate string per piece.
struct MarkupBuffer {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    /// Whether nothing was appended.
    var isEmpty: Bool { bytes.isEmpty }

    /// Appends `literal` as it is.
    mutating func append(_ literal: StaticString) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Appends `text` as it is (text already escaped, or that needs none).
    mutating func raw(_ text: String) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// Appends `value` escaped as text content (``Markup/text(_:)``).
    mutating func text(_ value: String) {
        escaped(value, attribute: false)
    }

    /// Appends `value` escaped as a quoted attribute value (``Markup/attribute(_:)``).
    mutating func attribute(_ value: String) {
        escaped(value, attribute: true)
    }

    /// Appends ` name="value"`, the value escaped.
    mutating func attribute(_ name: StaticString, _ value: String) {
        append(" ")
        append(name)
        append("=\"")
        attribute(value)
        append("\"")
    }

    /// Appends ` name="value"` for a number.
    mutating func attribute(_ name: StaticString, _ value: Int) {
        append(" ")
        append(name)
        append("=\"")
        int(value)
        append("\"")
    }

    /// Appends `value` in decimal.
    mutating func int(_ value: Int) {
        int64(Int64(value))
    }

    /// Appends `value` in decimal.
    mutating func int64(_ value: Int64) {
        bytes.appendDecimal(value)
    }

    /// Empties the buffer, keeping its capacity.
    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
    }

    /// Appends another buffer's bytes.
    mutating func append(_ other: MarkupBuffer) {
        bytes.append(contentsOf: other.bytes)
    }

    private mutating func escaped(_ value: String, attribute: Bool) {
        var value = value
        let plain = value.withUTF8 { utf8 -> Bool in
            guard !Markup.needsEscaping(utf8) else { return false }
            bytes.append(contentsOf: utf8)
            return true
        }
        if !plain { raw(attribute ? Markup.attribute(value) : Markup.text(value)) }
    }
}
