import Testing
import Reporters

@Suite("Report formats")
struct ReportFormatTests {
    @Test("a file name's extension names its format, in any case; other names and bare dots name none")
    func formatByExtension() {
        let named: [(String, ReportFormat?)] = [
            ("r.xml", .junit), ("out/JUNIT.XML", .junit), ("summary.md", .markdown), ("a.markdown", .markdown),
            ("report.html", .html), ("x.HTM", .html), ("r.json", .json), ("a.tar.json", .json),
            ("r.txt", nil), ("report", nil), (".html", nil), ("out.html/report", nil), ("r.", nil), ("", nil),
        ]
        for (name, format) in named {
            #expect(ReportFormat(extensionOf: name) == format, "\(name)")
        }
    }
}
