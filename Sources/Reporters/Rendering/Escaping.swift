import MatrixJSON

/// Escaping for XML, HTML and SVG text and attribute values.
///
/// Characters XML 1.0 forbids (C0 controls other than tab, newline and carriage return; U+FFFE; U+FFFF) cannot
/// appear even as character references, so they are written as visible text, `\u001B`. C1 controls
/// (U+007F–U+009F) are treated the same, as HTML does not allow them either, and so are the characters that
/// make text read other than it is (bidirectional controls such as U+202E, line and paragraph separators, zero
/// width space and BOM: ``TerminalText/isUnsafe(_:keepingLineBreaks:)``), which a run's strings may carry.
enum Markup {
    /// Escapes text content: `&`, `<`, `>` and forbidden characters.
    package static func text(_ value: String) -> String {
        escape(value, attribute: false)
    }

    /// Escapes a double- or single-quoted attribute value: as ``text(_:)`` plus quotes, and tab, newline and
    /// carriage return as character references so that attribute normalisation keeps them.
    static func attribute(_ value: String) -> String {
        escape(value, attribute: true)
    }

    private static func escape(_ value: String, attribute: Bool) -> String {
        // Most text has nothing to escape: no markup character, no control, no U+0080–U+009F (lead byte C2),
        // no U+FFFE or U+FFFF (lead byte EF).
        var value = value
        if !value.withUTF8(needsEscaping) { return value }
        var out = ""
        out.reserveCapacity(value.utf8.count)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"" where attribute: out += "&quot;"
            case "'" where attribute: out += "&apos;"
            case "\t" where attribute: out += "&#9;"
            case "\n" where attribute: out += "&#10;"
            case "\r": out += "&#13;"
            case "\t", "\n": out.unicodeScalars.append(scalar)
            default:
                if isForbidden(scalar) {
                    out += visible(scalar)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// Whether UTF-8 text may need escaping, as text or as an attribute: it holds a markup character, a control,
    /// or a lead byte of a character ``isForbidden(_:)`` may name (``mayBeForbidden(_:)``). Most text does not.
    static func needsEscaping(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        utf8.contains { byte in
            byte < 0x20 || byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">")
                || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") || mayBeForbidden(byte)
        }
    }

    /// Whether a UTF-8 byte is DEL or the lead byte of a character ``isForbidden(_:)`` may name: C2 (C1
    /// controls), D8 (U+061C), E2 (U+200B–U+206F) or EF (U+FEFF, U+FFFE, U+FFFF). Other characters with these
    /// lead bytes take the slow path too, and come out as they are.
    static func mayBeForbidden(_ byte: UInt8) -> Bool {
        byte == 0x7F || byte == 0xC2 || byte == 0xD8 || byte == 0xE2 || byte == 0xEF
    }

    /// Controls, U+FFFE and U+FFFF, and the characters that make text read other than it is (tab and newline
    /// are the caller's).
    static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value == 0xFFFE || scalar.value == 0xFFFF || TerminalText.isUnsafe(scalar, keepingLineBreaks: true)
    }

    /// `\u001B`.
    static func visible(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}

/// Escaping for GitHub-flavoured Markdown.
package enum Markdown {
    /// Characters that could start emphasis, code, links, HTML, entities, strikethrough or a table cell.
    private static let special: Set<Unicode.Scalar> = ["\\", "`", "*", "_", "[", "]", "<", ">", "|", "~", "&"]

    /// Plain text safe inside a paragraph or a table cell: special characters backslash-escaped, line breaks
    /// as `<br>`, forbidden control characters made visible.
    package static func text(_ value: String) -> String {
        if isPlain(value, also: specialMask) { return value }
        var out = ""
        for scalar in value.unicodeScalars {
            if special.contains(scalar) {
                out += "\\"
                out.unicodeScalars.append(scalar)
            } else if scalar == "\n" {
                out += "<br>"
            } else if scalar == "\r" {
                continue
            } else if Markup.isForbidden(scalar) || scalar == "\t" {
                out += scalar == "\t" ? " " : Markup.visible(scalar)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Whether `value` holds none of the ASCII characters of `mask` (``mask(_:)``), no control character and no
    /// lead byte of a character ``Markup/isForbidden(_:)`` may name (``Markup/mayBeForbidden(_:)``), so that
    /// escaping leaves it as it is.
    private static func isPlain(_ value: String, also mask: (low: UInt64, high: UInt64)) -> Bool {
        var value = value
        return value.withUTF8 { utf8 in
            !utf8.contains { byte in
                byte < 0x20 || Markup.mayBeForbidden(byte)
                    || (byte < 0x40 ? mask.low >> byte & 1 != 0 : byte < 0x80 && mask.high >> (byte - 0x40) & 1 != 0)
            }
        }
    }

    /// ASCII characters as a bit mask: bit `c` of `low` for c < 64, bit `c - 64` of `high` for the rest.
    private static func mask(_ characters: Set<Unicode.Scalar>) -> (low: UInt64, high: UInt64) {
        var mask: (low: UInt64, high: UInt64) = (0, 0)
        for character in characters where character.isASCII {
            let value = UInt64(character.value)
            if value < 64 { mask.low |= 1 << value } else { mask.high |= 1 << (value - 64) }
        }
        return mask
    }

    private static let specialMask = mask(special)
    private static let codeMask = mask(["|", "`"])
    private static let codeMaskOutsideTables = mask(["`"])

    /// A code span that shows `value` literally; line breaks become spaces. In a table cell (`inTable`) `|` is
    /// escaped, which GitHub removes again inside the span; outside a table a backslash would show, so `|`
    /// is left as it is.
    package static func code(_ value: String, inTable: Bool = true) -> String {
        // Text with no line break, control, `|` or backtick is its own content, fenced by one backtick.
        if isPlain(value, also: inTable ? codeMask : codeMaskOutsideTables) { return "`" + (value.isEmpty ? " " : value) + "`" }
        var content = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\n", "\r", "\t": content += " "
            case "|" where inTable: content += "\\|"
            default: content += Markup.isForbidden(scalar) ? Markup.visible(scalar) : String(scalar)
            }
        }
        var longest = 0
        var run = 0
        for character in content {
            run = character == "`" ? run + 1 : 0
            longest = max(longest, run)
        }
        let fence = String(repeating: "`", count: longest + 1)
        let padded = content.isEmpty ? " " : content.hasPrefix("`") || content.hasSuffix("`") ? " " + content + " " : content
        return fence + padded + fence
    }
}
