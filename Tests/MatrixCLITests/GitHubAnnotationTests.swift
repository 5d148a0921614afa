import Foundation
import Testing
@testable import MatrixCLI
import TestSupport

/// In GitHub Actions (`GITHUB_ACTIONS=true`), `validate` and `run` annotate the matrix file where the problem is.
@Suite("GitHub Actions annotations")
struct GitHubAnnotationTests {
    let release = Fixtures.packageDirectory.appendingPathComponent("matrices/release.json")
    let github = ["GITHUB_ACTIONS": "true"]

    @Test("workflow commands are escaped as GitHub's toolkit escapes them")
    func escaping() {
        #expect(GitHubAnnotations.command(.error, message: "50% done\nnext", file: "a,b:c.json", line: 3, column: 9, title: "T: x")
            == "::error file=a%2Cb%3Ac.json,line=3,col=9,title=T%3A x::50%25 done%0Anext")
        #expect(GitHubAnnotations.command(.warning, message: "m", file: nil) == "::warning::m")
    }

    @Test("validate annotates every diagnostic at its file, line and column, only in GitHub Actions")
    func validate() async throws {
        let dir = try MatrixBinary.scratchDirectory("matrix-annotate")
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.copyItem(at: release.deletingLastPathComponent(), to: dir.appendingPathComponent("matrices"))
        let bad = dir.appendingPathComponent("matrices/bad.json")
        let text = try String(contentsOf: release, encoding: .utf8)
            .replacingOccurrences(of: #""product": "com.example.storekitmatrix.pro", "expect": {"access": ["pro"], "result": "success""#,
                                  with: #""product": "com.example.storekitmatrix.prp", "expect": {"access": ["pro"], "result": "success""#)
        try text.write(to: bad, atomically: true, encoding: .utf8)
        let annotated = try await MatrixBinary.run(["validate", "matrices/bad.json"], in: dir, environment: github)
        #expect(annotated.status == 65)
        let line = try #require(annotated.stderr.split(separator: "\n").first { $0.hasPrefix("::error file=matrices/bad.json,line=") })
        #expect(line.contains(",title=MX013::unknown product \"com.example.storekitmatrix.prp\"; did you mean"), "\(line)")
        let plain = try await MatrixBinary.run(["validate", "matrices/bad.json"], in: dir)
        #expect(!plain.stderr.contains("::error"))
    }

    @Test("run annotates each failing step on the step's line of the matrix")
    func run() async throws {
        let dir = try MatrixBinary.scratchDirectory("matrix-annotate")
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try await MatrixBinary.run(["run", release.path, "--kind", "restore", "--app-fault", "restoreReportsSuccess", "--out", dir.path,
                                           "--quiet"], environment: github)
        #expect(result.status == 1)
        let annotations = result.stderr.split(separator: "\n").filter { $0.hasPrefix("::error ") }
        let annotation = try #require(annotations.first { $0.contains("title=FAIL restore/nothing-to-restore step 1 (restore)") }, "\(result.stderr)")
        let fields = annotation.dropFirst("::error ".count).prefix { $0 != ":" }.split(separator: ",")
        let line = try #require(fields.first { $0.hasPrefix("line=") }.flatMap { Int($0.dropFirst(5)) })
        let column = try #require(fields.first { $0.hasPrefix("col=") }.flatMap { Int($0.dropFirst(4)) })
        let lines = try String(contentsOf: release, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[line - 1].dropFirst(column - 1).hasPrefix(#"{"action": "restore""#), "\(lines[line - 1])")
        #expect(annotation.hasSuffix("::result: expected \"nothingToRestore\", observed \"restored\"") || annotation.contains("::result"),
                "\(annotation)")
    }

    @Test("a failing case's line names its step as FILE:LINE:COLUMN, outside GitHub Actions too")
    func caseLineLocation() async throws {
        let dir = try MatrixBinary.scratchDirectory("matrix-locate")
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.copyItem(at: release.deletingLastPathComponent(), to: dir.appendingPathComponent("matrices"))
        let result = try await MatrixBinary.run(["run", "matrices/release.json", "--kind", "restore", "--app-fault", "restoreReportsSuccess",
                                                 "--out", "out", "--quiet"], in: dir)
        #expect(result.status == 1)
        let line = try #require(result.stderr.split(separator: "\n").first { $0.contains("FAIL    restore/nothing-to-restore — step 1 (restore)") },
                                "\(result.stderr)")
        let location = try #require(line.firstMatch(of: /\(matrices\/release\.json:(\d+):(\d+)\)$/), "\(line)")
        let lines = try String(contentsOf: release, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        let row = try #require(Int(location.1)), column = try #require(Int(location.2))
        #expect(lines[row - 1].dropFirst(column - 1).hasPrefix(#"{"action": "restore""#), "\(lines[row - 1])")
        #expect(!result.stderr.contains("::error"))
    }

    @Test("the GitHub Actions example uses commands and options matrix has")
    func exampleWorkflow() throws {
        let text = try String(contentsOf: Fixtures.packageDirectory.appendingPathComponent("examples/ci/github-actions.yml"), encoding: .utf8)
        var checked = 0
        for raw in text.split(separator: "\n") {
            var line = raw.drop { $0 == " " }
            if line.hasPrefix("run: ") { line = line.dropFirst(5) }
            guard line.hasPrefix("matrix "), let start = line.range(of: "matrix ") else { continue }
            let words = line[start.upperBound...].split(separator: " ").map(String.init)
            guard let name = words.first, let command = CommandTable.entry(name)?.spec else {
                Issue.record("unknown command in: \(line)")
                continue
            }
            for option in words.dropFirst() where option.hasPrefix("--") {
                #expect(command.options.contains { $0.name == option }, "matrix \(name) has no option \(option)")
            }
            checked += 1
        }
        #expect(checked >= 5, "validate, run, merge, archive and verify")
    }
}
