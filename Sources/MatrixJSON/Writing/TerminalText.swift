/// Text from a file, a driver, a server or an archive made safe to show on a terminal.
///
/// Every character that a terminal acts on instead of showing, or that changes how the text around it is shown,
/// is written as `\u{…}` (its code point in hexadecimal): C0 controls (carriage return, escape, backspace…),
/// DEL, C1 controls (U+0080–U+009F, among them the one-byte CSI U+009B), Unicode's bidirectional controls
/// (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069: a U+202E makes what follows read backwards), the
/// line and paragraph separators U+2028 and U+2029, and the invisible U+200B and U+FEFF. Everything else is
/// kept, emoji and right-to-left scripts included.
///
/// This is the one place that decides what is escaped for a terminal; the command line's console passes
/// everything it prints through it, and renderers of untrusted one-line values (run ids, paths, member names)
/// call it with line breaks escaped too.
public enum TerminalText {
    /// `text` with every unsafe character written as `\u{…}`.
    ///
    /// - Parameter keepingLineBreaks: keep newline and tab as they are, for multi-line messages built by
    ///   `matrix` itself; without it they are escaped too, so that a value can never start a line of its own.
    public static func visible(_ text: String, keepingLineBreaks: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { isUnsafe($0, keepingLineBreaks: keepingLineBreaks) }) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar, keepingLineBreaks: keepingLineBreaks) {
                out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// Whether `scalar` is escaped by ``visible(_:keepingLineBreaks:)``.
    public static func isUnsafe(_ scalar: Unicode.Scalar, keepingLineBreaks: Bool = false) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: return !keepingLineBreaks
        case 0x00..<0x20, 0x7F...0x9F: return true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true   // bidirectional controls
        case 0x2028, 0x2029: return true                                             // line and paragraph separators
        case 0x200B, 0xFEFF: return true                                             // zero width space, BOM
        default: return false
        }
    }
}
