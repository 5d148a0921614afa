import HarnessCore
import HarnessRunner
#if canImport(Testing)
import Testing
#endif
#if canImport(XCTest)
import XCTest
#endif

#if canImport(Testing)
extension AppHarness {
    /// Runs the matrix at `path` against the app and records a Swift Testing issue for every step that failed,
    /// errored or was blocked, at that step's line and column in the matrix file (an editor shows it there).
    ///
    /// - Returns: the run's outcome.
    /// - Throws: ``AppHarnessError`` when the matrix cannot be loaded or the evidence cannot be written.
    @discardableResult
    public static func expectPasses(matrix path: String, options: Options = Options(),
                                    app: @escaping @Sendable () -> any AppUnderTest) async throws -> AppHarnessResult {
        let result = try await run(matrix: path, options: options, app: app)
        result.recordIssues()
        return result
    }
}
#endif

#if canImport(XCTest)
extension AppHarness {
    /// Runs the matrix at `path` against the app and fails the calling XCTest test with every step that failed
    /// or errored, each as `file:line:column: case #step action: reason` (XCTest locates failures in Swift files
    /// only, so the matrix locations are in the message).
    ///
    /// - Returns: the run's outcome.
    /// - Throws: ``AppHarnessError`` when the matrix cannot be loaded or the evidence cannot be written.
    @discardableResult
    public static func assertPasses(matrix path: String, options: Options = Options(), file: StaticString = #filePath, line: UInt = #line,
                                    app: @escaping @Sendable () -> any AppUnderTest) async throws -> AppHarnessResult {
        let result = try await run(matrix: path, options: options, app: app)
        result.failTest(file: file, line: line)
        return result
    }
}
#endif
