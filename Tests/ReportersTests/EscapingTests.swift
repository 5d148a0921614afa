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

    @Test("Markdown text escapes characters that would format or link")
    func markdownText() {
        #expect(Markdown.text("*a* _b_ [c](d) <e> |f| ~g~ &h; `i`\nj") == #"\*a\* \_b\_ \[c\](d) \<e\> \|f\| \~g\~ \&h; \`i\`<br>j"#)
    }
}
