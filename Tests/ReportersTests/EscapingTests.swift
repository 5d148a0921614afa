import Testing
@testable import Reporters

@Suite("Escaping")
struct EscapingTests {
    @Test("XML text escapes markup and makes forbidden characters visible", arguments: [
        ("a & b < c > d", "a &amp; b &lt; c &gt; d"),
        ("quotes \" and '", "quotes \" and '"),
        ("tab\tnewline\n", "tab\tnewline\n"),
        ("cr\r", "cr&#13;"),
        ("nul\u{0} bel\u{7} esc\u{1B} del\u{7F}", "nul\\u0000 bel\\u0007 esc\\u001B del\\u007F"),
        ("\u{FFFE}\u{FFFF}", "\\uFFFE\\uFFFF"),
        ("emoji 🎉 stays", "emoji 🎉 stays"),
    ])
    func xmlText(input: String, output: String) {
        #expect(Markup.text(input) == output)
    }

    @Test("XML attributes also escape quotes, tabs and line breaks")
    func xmlAttribute() {
        #expect(Markup.attribute("a\"b'c\td\ne") == "a&quot;b&apos;c&#9;d&#10;e")
    }

    @Test("Markdown code spans pick a fence longer than any backtick run inside", arguments: [
        ("plain", "`plain`"),
        ("a`b", "``a`b``"),
        ("``x``", "``` ``x`` ```"),
        ("a|b", "`a\\|b`"),
        ("", "` `"),
    ])
    func markdownCode(input: String, output: String) {
        #expect(Markdown.code(input) == output)
    }

    @Test("Outside a table a code span keeps | as it is (a backslash would show); backticks and line breaks as in a table")
    func markdownCodeOutsideTables() {
        #expect(Markdown.code("a|b|c", inTable: false) == "`a|b|c`")
        #expect(Markdown.code("a|`b\nc", inTable: false) == "``a|`b c``")
        #expect(Markdown.code("plain", inTable: false) == "`plain`")
    }

    @Test("Markdown text escapes characters that would format or link")
    func markdownText() {
        #expect(Markdown.text("*a* _b_ [c](d) <e> |f| ~g~ &h; `i`\nj") == #"\*a\* \_b\_ \[c\](d) \<e\> \|f\| \~g\~ \&h; \`i\`<br>j"#)
    }

    @Test("Characters that make text read other than it is are visible in XML, HTML and Markdown; other non-ASCII text is kept")
    func deceptiveCharacters() {
        let hostile = "1.0\u{202E}(evil)\u{2028}\u{9B}2J\u{2066}x\u{200B}"
        for escaped in [Markup.text(hostile), Markup.attribute(hostile), Markdown.text(hostile), Markdown.code(hostile)] {
            #expect(!escaped.unicodeScalars.contains { [0x202E, 0x2028, 0x9B, 0x2066, 0x200B].contains($0.value) }, "\(escaped)")
            #expect(escaped.contains("\\u202E") && escaped.contains("\\u2028"), "\(escaped)")
        }
        // Lead bytes E2 and C2 start ordinary characters too: an em dash, an arrow and a middle dot stay.
        #expect(Markup.text("a — b → c · d") == "a — b → c · d")
        #expect(Markdown.text("a — b → c · d") == "a — b → c · d")
    }
}
