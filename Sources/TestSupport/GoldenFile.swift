import Foundation
import Testing

/// Reference outputs in a `Golden/` folder beside the test file that checks them, found through `#filePath`.
///
/// With `MATRIX_RECORD_GOLDEN=1` in the environment the actual output is written as the new reference
/// instead of being compared.
public enum GoldenFile {
    static var recording: Bool { ProcessInfo.processInfo.environment["MATRIX_RECORD_GOLDEN"] == "1" }

    /// Compares `actual` with the golden file `name` in the `Golden/` folder beside the calling test file,
    /// recording it instead when asked to.
    public static func check(_ actual: Data, named name: String, filePath: String = #filePath,
                             sourceLocation: SourceLocation = #_sourceLocation) throws {
        let directory = URL(fileURLWithPath: filePath).deletingLastPathComponent().appendingPathComponent("Golden")
        let url = directory.appendingPathComponent(name)
        if recording {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try actual.write(to: url)
            return
        }
        let expected = try #require(try? Data(contentsOf: url), "missing golden file \(name); run the tests with MATRIX_RECORD_GOLDEN=1",
                                    sourceLocation: sourceLocation)
        if actual == expected { return }
        let actualLines = String(decoding: actual, as: UTF8.self).components(separatedBy: "\n")
        let expectedLines = String(decoding: expected, as: UTF8.self).components(separatedBy: "\n")
        let line = zip(actualLines, expectedLines).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            ?? min(actualLines.count, expectedLines.count)
        let want = line < expectedLines.count ? expectedLines[line] : "<end of file>"
        let got = line < actualLines.count ? actualLines[line] : "<end of file>"
        let message = "\(name) differs from its golden file at line \(line + 1):\n  golden: \(want)\n  actual: \(got)\n"
            + "Re-record with MATRIX_RECORD_GOLDEN=1 if the change is intended."
        Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
    }
}
