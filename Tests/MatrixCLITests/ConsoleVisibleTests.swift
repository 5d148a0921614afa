import Testing
@testable import MatrixCLI

/// Text from matrices and drivers reaches the terminal as text, never as escape sequences.
@Suite("Console text")
struct ConsoleVisibleTests {
    @Test("control characters are written as \\u{…}; other text, emoji and right-to-left scripts are kept")
    func controlCharacters() {
        #expect(Console.visible("id\u{1B}[31mRED") == #"id\u{1B}[31mRED"#)
        #expect(Console.visible("a\u{7}b\u{9B}c\nd") == #"a\u{7}b\u{9B}c\u{A}d"#)
        #expect(Console.visible("refund/pro — 🎉 שלום") == "refund/pro — 🎉 שלום")
    }
}
