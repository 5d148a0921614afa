#if canImport(Testing)
import Testing
#endif
#if canImport(XCTest)
import XCTest
#endif

#if canImport(Testing)
extension AppHarnessResult {
    /// Records a Swift Testing issue for every step that failed or errored, at that step's line and column in the
    /// matrix file (an editor shows it there), and one when the run was interrupted. The text is escaped
    /// (``AppHarnessResult/Failure/issueText``): a reason comes from the app under test.
    public func recordIssues() {
        for failure in failures where failure.verdict != "blocked" {
            Issue.record(Comment(rawValue: failure.issueText),
                         sourceLocation: SourceLocation(fileID: "matrix/\(failure.file.split(separator: "/").last ?? "")",
                                                        filePath: failure.file, line: failure.line, column: failure.column))
        }
        if summary.interrupted {
            Issue.record("the run was interrupted before every case ended")
        }
    }
}
#endif

#if canImport(XCTest)
extension AppHarnessResult {
    /// Fails the calling XCTest test with every step that failed or errored, each as
    /// `file:line:column: case #step action: reason` (XCTest locates failures in Swift files only, so the matrix
    /// locations are in the message).
    public func failTest(file: StaticString, line: UInt) {
        let failed = failures.filter { $0.verdict != "blocked" }
        if !failed.isEmpty || summary.interrupted {
            XCTFail("\(failed.count) step\(failed.count == 1 ? "" : "s") did not pass\(summary.interrupted ? " (the run was interrupted)" : ""):\n"
                    + failed.map(\.description).joined(separator: "\n"), file: file, line: line)
        }
    }
}
#endif
