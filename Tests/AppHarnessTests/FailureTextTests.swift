import Testing
import MatrixJSON
@testable import HarnessRunner

/// A failure's reason comes from the team's app (an error's description, a message it reports): in a test log on a
/// terminal it must show as text, never act as an escape sequence, a carriage return or a bidirectional override.
@Suite("App harness failure text")
struct FailureTextTests {
    @Test("control characters, bidirectional overrides and line breaks from the app are written as \\u{…}")
    func escaped() {
        let failure = AppHarnessResult.Failure(caseID: "refund/pro\u{1B}[1A", step: 2, action: "refund", verdict: "fail",
                                               reason: "access [\"pro\"]\r\u{1B}[2K\u{1B}[32m✔ all passed\u{202E}\ndeppiks\u{2028}x",
                                               file: "matrices/release.json", line: 14, column: 9)
        for text in [failure.description, failure.issueText] {
            #expect(!text.unicodeScalars.contains { TerminalText.isUnsafe($0) }, "\(text.debugDescription)")
            #expect(text.contains(#"\u{1B}[2K"#) && text.contains(#"\u{202E}"#) && text.contains(#"\u{A}"#) && text.contains(#"\u{2028}"#))
        }
        #expect(failure.description.hasPrefix(#"matrices/release.json:14:9: refund/pro\u{1B}[1A #2 refund: fail: access ["pro"]\u{D}"#))
        #expect(failure.issueText.hasPrefix(#"refund/pro\u{1B}[1A #2 refund: access"#))
    }

    @Test("plain text is kept as it is, emoji and right-to-left scripts included")
    func plain() {
        let failure = AppHarnessResult.Failure(caseID: "buy/🎟", step: 0, action: "purchase", verdict: "error",
                                               reason: "المنتج غير متوفر", file: "m.json", line: 1, column: 2)
        #expect(failure.description == "m.json:1:2: buy/🎟 #0 purchase: error: المنتج غير متوفر")
    }
}
