import Testing
import MatrixJSON

/// What reaches a terminal is text: no escape sequence, carriage return, C1 control or bidirectional override.
@Suite("Terminal text")
struct TerminalTextTests {
    @Test("C0, DEL and C1 controls are written as \\u{…}; other text, emoji and right-to-left scripts are kept")
    func controls() {
        #expect(TerminalText.visible("id\u{1B}[31mRED") == #"id\u{1B}[31mRED"#)
        #expect(TerminalText.visible("a\u{7}b\u{9B}c\nd\re\u{7F}") == #"a\u{7}b\u{9B}c\u{A}d\u{D}e\u{7F}"#)
        #expect(TerminalText.visible("refund/pro — 🎉 שלום 👩‍👩‍👧") == "refund/pro — 🎉 שלום 👩‍👩‍👧")
    }

    // Unicode's bidirectional controls (UAX #9, Bidi_Control=Yes) and the line and paragraph separators.
    @Test("Bidirectional overrides, isolates and marks, U+2028 and U+2029 are escaped", arguments: [
        0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069, 0x2028, 0x2029, 0x200B, 0xFEFF,
    ])
    func bidi(value: UInt32) throws {
        let scalar = try #require(Unicode.Scalar(value))
        let text = "run" + String(Character(scalar)) + "fdp.exe"
        #expect(TerminalText.visible(text) == "run\\u{\(String(value, radix: 16, uppercase: true))}fdp.exe")
    }

    @Test("Line breaks are kept only when asked for; carriage return never is")
    func lineBreaks() {
        #expect(TerminalText.visible("a\nb\tc", keepingLineBreaks: true) == "a\nb\tc")
        #expect(TerminalText.visible("a\nb\tc") == #"a\u{A}b\u{9}c"#)
        #expect(TerminalText.visible("a\r\nb", keepingLineBreaks: true) == "a\\u{D}\nb")
    }
}
