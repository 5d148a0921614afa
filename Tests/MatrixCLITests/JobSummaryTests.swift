import Foundation
import Testing
@testable import EvidenceStore
@testable import MatrixCLI
@testable import MatrixModel
@testable import Reporters
@testable import TestSupport

@Suite("Job summary")
struct JobSummaryTests {
    /// A run directory holding only `summary.md` with `text`.
    func runDirectory(in root: URL, summary text: String) throws -> RunDirectory {
        let directory = try RunDirectory.create(root: root, environment: "local", build: "", runID: "r1")
        try directory.write(Data(text.utf8), named: MarkdownSummary.fileName)
        return directory
    }

    /// A console whose stderr goes to a file, and that file.
    func console(in root: URL) throws -> (Console, URL) {
        let url = root.appendingPathComponent("stderr.txt")
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        return (Console(environment: ["NO_COLOR": "1"], err: try FileHandle(forWritingTo: url)), url)
    }

    @Test("With GITHUB_STEP_SUMMARY set, summary.md is appended to that file; unset or empty, nothing is written")
    func appends() throws {
        let root = try MatrixBinary.scratchDirectory("job-summary")
        defer { try? FileManager.default.removeItem(at: root) }
        let directory = try runDirectory(in: root, summary: "# StoreKit Matrix: release — PASS\n")
        let target = root.appendingPathComponent("summary-target.md")
        let (console, stderr) = try console(in: root)
        JobSummary.append(from: directory, environment: ["GITHUB_STEP_SUMMARY": target.path], console: console)
        JobSummary.append(from: directory, environment: ["GITHUB_STEP_SUMMARY": target.path], console: console)
        let twice = String(repeating: "# StoreKit Matrix: release — PASS\n", count: 2)
        #expect(try String(contentsOf: target, encoding: .utf8) == twice)
        JobSummary.append(from: directory, environment: [:], console: console)
        JobSummary.append(from: directory, environment: ["GITHUB_STEP_SUMMARY": ""], console: console)
        #expect(try String(contentsOf: target, encoding: .utf8) == twice)
        #expect(try String(contentsOf: stderr, encoding: .utf8).isEmpty)
    }

    @Test("A job summary that cannot be written is a warning, not a failure of the run")
    func unwritable() throws {
        let root = try MatrixBinary.scratchDirectory("job-summary")
        defer { try? FileManager.default.removeItem(at: root) }
        let directory = try runDirectory(in: root, summary: "# x\n")
        let (console, stderr) = try console(in: root)
        JobSummary.append(from: directory, environment: ["GITHUB_STEP_SUMMARY": root.path], console: console)
        let text = try String(contentsOf: stderr, encoding: .utf8)
        #expect(text.hasPrefix("warning: cannot append the run's summary to the job summary \(root.path)"))
    }
}
