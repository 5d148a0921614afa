import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
import Reporters
import TestSupport

/// The built `matrix` binary: `report`, `compare`, and the job summary `run` appends.
@Suite("End to end: matrix report and compare")
struct ReportCompareEndToEndTests {
    let release = Fixtures.packageDirectory.appendingPathComponent("matrices/release.json").path

    /// Runs the release matrix (with `arguments` added) into `out` and returns its run directory.
    func run(into out: URL, _ arguments: [String] = [], environment: [String: String] = [:]) async throws -> URL {
        let result = try await MatrixBinary.run(["run", release, "--out", out.path, "--quiet"] + arguments, environment: environment)
        #expect(result.status == 0 || result.status == 1, "stderr: \(result.stderr)")
        return try #require(MatrixBinary.runDirectories(under: out).first)
    }

    @Test("run appends summary.md to GITHUB_STEP_SUMMARY; report renders JUnit, Markdown and HTML as run wrote them")
    func jobSummaryAndReport() async throws {
        let dir = try MatrixBinary.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let jobSummary = dir.appendingPathComponent("step-summary.md")
        try Data("# earlier step\n".utf8).write(to: jobSummary)
        let runDir = try await run(into: dir.appendingPathComponent("out"), environment: ["GITHUB_STEP_SUMMARY": jobSummary.path])
        let summary = try String(contentsOf: runDir.appendingPathComponent("summary.md"), encoding: .utf8)
        #expect(try String(contentsOf: jobSummary, encoding: .utf8) == "# earlier step\n" + summary)

        for (format, file) in [("junit", "junit.xml"), ("markdown", "summary.md"), ("html", "report.html")] {
            let result = try await MatrixBinary.run(["report", runDir.path, "--format", format])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(Data(result.stdout.utf8) == (try Data(contentsOf: runDir.appendingPathComponent(file))), "\(format) differs from \(file)")
        }
        let junit = try await MatrixBinary.run(["report", runDir.path, "--format", "junit"])
        let counts = try #require(JUnitCounts(Data(junit.stdout.utf8)))
        let records = try String(contentsOf: runDir.appendingPathComponent("evidence.jsonl"), encoding: .utf8)
            .split(separator: "\n").count
        #expect(counts.root == "testsuites")
        let matrix = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: release))) as? [String: Any])
        let cases = try #require((matrix["cases"] as? [Any])?.count)
        #expect(counts.suites == cases && counts.testcases == records)
        #expect(counts.declaredTests == records && counts.declaredFailures == 0)

        // Without --format, --out's extension names the format (Markdown for others); a missing folder is made.
        for (name, file) in [("made/for/it/r.html", "report.html"), ("r.XML", "junit.xml"), ("r.md", "summary.md"), ("r.txt", "summary.md")] {
            let target = dir.appendingPathComponent(name)
            let result = try await MatrixBinary.run(["report", runDir.path, "--out", target.path])
            #expect(result.status == 0, "\(name): \(result.stderr)")
            #expect(try Data(contentsOf: target) == Data(contentsOf: runDir.appendingPathComponent(file)), "\(name) holds \(file)")
        }
        let named = dir.appendingPathComponent("named.html")
        #expect(try await MatrixBinary.run(["report", runDir.path, "--format", "markdown", "--out", named.path]).status == 0)
        #expect(try Data(contentsOf: named) == Data(contentsOf: runDir.appendingPathComponent("summary.md")), "--format wins over the extension")

        let outFile = dir.appendingPathComponent("report.json")
        let json = try await MatrixBinary.run(["report", runDir.path, "--format", "json", "--out", outFile.path])
        #expect(json.status == 0 && json.stdout.isEmpty)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: outFile)) as? [String: Any])
        #expect(object["reportVersion"] as? Int == 1)
        #expect((object["cases"] as? [Any])?.count == cases)
        let again = try await MatrixBinary.run(["report", runDir.path, "--format", "json", "--out", outFile.path])
        #expect(again.status == 64 && again.stderr.contains("exists; pass --force to replace it"), "an existing file is kept without --force")
        #expect(try await MatrixBinary.run(["report", runDir.path, "--format", "json", "--out", outFile.path, "--force"]).status == 0)
    }

    @Test("report drops a torn last line with a warning; 66 for a missing directory, 65 for one that is not a run")
    func reportInputs() async throws {
        let dir = try MatrixBinary.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let runDir = try await run(into: dir.appendingPathComponent("out"))
        let evidence = try FileHandle(forWritingTo: runDir.appendingPathComponent("evidence.jsonl"))
        try evidence.seekToEnd()
        try evidence.write(contentsOf: Data(#"{"run":"torn","seq":73,"#.utf8))
        try evidence.close()
        let torn = try await MatrixBinary.run(["report", runDir.path, "--format", "junit"])
        #expect(torn.status == 0)
        #expect(torn.stderr.contains("warning: ") && torn.stderr.contains("evidence.jsonl: the last line is incomplete"))
        #expect(Data(torn.stdout.utf8) == (try Data(contentsOf: runDir.appendingPathComponent("junit.xml"))))

        let missing = try await MatrixBinary.run(["report", dir.appendingPathComponent("nope").path])
        #expect(missing.status == 66 && missing.stderr.contains("no such directory"))
        let notRun = try await MatrixBinary.run(["report", dir.path])
        #expect(notRun.status == 65 && notRun.stderr.contains("is not a run directory: it has no run.json"))
        let badFormat = try await MatrixBinary.run(["report", runDir.path, "--format", "xml"])
        #expect(badFormat.status == 64)

        // The report is never written over what it is made from, whatever the path; a device is written to.
        let evidencePath = runDir.appendingPathComponent("evidence.jsonl")
        let before = try Data(contentsOf: evidencePath)
        let ownEvidence = try await MatrixBinary.run(["report", runDir.path, "--out", runDir.appendingPathComponent("./evidence.jsonl").path, "--force"])
        #expect(ownEvidence.status == 64 && ownEvidence.stderr.contains("is inside the run directory"))
        #expect(try Data(contentsOf: evidencePath) == before)
        let ownManifest = try await MatrixBinary.run(["report", runDir.path, "--out", runDir.appendingPathComponent("run.json").path, "--force"])
        #expect(ownManifest.status == 64)
        #expect(try await MatrixBinary.run(["report", runDir.path, "--out", "/dev/null"]).status == 0)
        // A file the run does not list would make it fail verify (EXTRA), a listed one replaced (ALTERED): both
        // refused, in the run directory or a folder of it, --force or not.
        let inside = try await MatrixBinary.run(["report", runDir.path, "--format", "json", "--out", runDir.appendingPathComponent("report.json").path])
        #expect(inside.status == 64 && inside.stderr.contains("is inside the run directory"), "\(inside.stderr)")
        #expect(!FileManager.default.fileExists(atPath: runDir.appendingPathComponent("report.json").path))
        let junitPath = runDir.appendingPathComponent("junit.xml")
        let junit = try Data(contentsOf: junitPath)
        let replaced = try await MatrixBinary.run(["report", runDir.path, "--format", "markdown", "--out", junitPath.path, "--force"])
        #expect(replaced.status == 64 && replaced.stderr.contains("is inside the run directory"), "\(replaced.stderr)")
        #expect(try Data(contentsOf: junitPath) == junit)
        // A hard link to the run's report, made outside the run, is another name of the same file: --force
        // replaces the name, never the run's bytes.
        let linked = runDir.deletingLastPathComponent().appendingPathComponent("linked-junit.xml")
        try? FileManager.default.removeItem(at: linked)
        #expect(link(junitPath.path, linked.path) == 0)
        let throughLink = try await MatrixBinary.run(["report", runDir.path, "--format", "markdown", "--out", linked.path, "--force"])
        #expect(throughLink.status == 0, "\(throughLink.stderr)")
        #expect(try Data(contentsOf: junitPath) == junit, "the run's junit.xml is unchanged")
        #expect(try String(contentsOf: linked, encoding: .utf8).hasPrefix("#"), "the link's name now holds the Markdown report")
        let nested = try await MatrixBinary.run(["report", runDir.path, "--out", runDir.appendingPathComponent("sub/r.md").path])
        #expect(nested.status == 64)
        let initRun = try await MatrixBinary.run(["init", "--catalog", Fixtures.packageDirectory.appendingPathComponent("matrices/Products.storekit").path,
                                               "--out", evidencePath.path, "--force"])
        #expect(initRun.status == 64 && initRun.stderr.contains("is inside the run directory"), "\(initRun.stderr)")
        #expect(try Data(contentsOf: evidencePath) == before)
        let archive = try await MatrixBinary.run(["archive", runDir.path, "--out", runDir.appendingPathComponent("self.tar.gz").path])
        #expect(archive.status == 64 && archive.stderr.contains("is inside the run directory"), "\(archive.stderr)")
        #expect(!FileManager.default.fileExists(atPath: runDir.appendingPathComponent("self.tar.gz").path))
    }

    @Test("report --out replaces a link's name, never what it points to, and a report that fails leaves what was there")
    func outputFileSafety() async throws {
        let dir = try MatrixBinary.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let runDir = try await run(into: dir.appendingPathComponent("out"))
        let files = FileManager.default
        // A dangling link into the run, and a link to one of its reports: --force writes a new file at the name.
        let dangling = dir.appendingPathComponent("dangling.md")
        try files.createSymbolicLink(atPath: dangling.path, withDestinationPath: runDir.appendingPathComponent("extra.md").path)
        #expect(try await MatrixBinary.run(["report", runDir.path, "--out", dangling.path]).status == 64, "a link is an existing name")
        #expect(try await MatrixBinary.run(["report", runDir.path, "--out", dangling.path, "--force"]).status == 0)
        #expect(!files.fileExists(atPath: runDir.appendingPathComponent("extra.md").path), "nothing was written into the run")
        #expect((try? files.destinationOfSymbolicLink(atPath: dangling.path)) == nil, "the name now holds a file, not a link")
        let summary = runDir.appendingPathComponent("summary.md")
        let before = try Data(contentsOf: summary)
        let linked = dir.appendingPathComponent("linked.xml")
        try files.createSymbolicLink(atPath: linked.path, withDestinationPath: summary.path)
        // A link that resolves into the run is refused as the run's own file is.
        let intoRun = try await MatrixBinary.run(["report", runDir.path, "--out", linked.path, "--force"])
        #expect(intoRun.status == 64 && intoRun.stderr.contains("is inside the run directory"), "\(intoRun.stderr)")
        #expect(try Data(contentsOf: summary) == before, "the run's summary.md is unchanged")
        #expect(try await MatrixBinary.run(["verify", runDir.path]).status == 0)

        // A report that cannot be rendered keeps the file it would have replaced, and makes no folder.
        let broken = dir.appendingPathComponent("broken")
        try files.copyItem(at: runDir, to: broken)
        let evidence = broken.appendingPathComponent("evidence.jsonl")
        var lines = try String(contentsOf: evidence, encoding: .utf8).split(separator: "\n").map(String.init)
        lines[3] = "{not json"
        try (lines.joined(separator: "\n") + "\n").write(to: evidence, atomically: true, encoding: .utf8)
        let keep = dir.appendingPathComponent("keep.md")
        try Data("precious\n".utf8).write(to: keep)
        let failed = try await MatrixBinary.run(["report", broken.path, "--out", keep.path, "--force"])
        #expect(failed.status == 65, "\(failed.stderr)")
        #expect(try String(contentsOf: keep, encoding: .utf8) == "precious\n")
        let nested = try await MatrixBinary.run(["report", broken.path, "--out", dir.appendingPathComponent("n1/n2/x.md").path])
        #expect(nested.status == 65 && !files.fileExists(atPath: dir.appendingPathComponent("n1").path), "no folder is left behind")
        #expect(try files.contentsOfDirectory(atPath: dir.path).allSatisfy { !$0.hasSuffix(".tmp") }, "no temporary file is left")

        // A link followed by `..` lands where the kernel resolves it: into the run, refused.
        let sibling = runDir.deletingLastPathComponent().appendingPathComponent("sibling")
        try files.createDirectory(at: sibling, withIntermediateDirectories: true)
        let viaLink = dir.appendingPathComponent("via")
        try files.createSymbolicLink(atPath: viaLink.path, withDestinationPath: sibling.path)
        let sneaky = try await MatrixBinary.run(["report", runDir.path, "--out", viaLink.path + "/../" + runDir.lastPathComponent + "/y.md"])
        #expect(sneaky.status == 64 && sneaky.stderr.contains("is inside the run directory"), "\(sneaky.stderr)")
        #expect(!files.fileExists(atPath: runDir.appendingPathComponent("y.md").path))
        #expect(try files.contentsOfDirectory(atPath: runDir.path).allSatisfy { !$0.hasSuffix(".tmp") })
        // A name for this process's stdout is written to, never replaced, --force or not; a long name fits.
        let ownStdout = dir.appendingPathComponent("mystdout")
        try files.createSymbolicLink(atPath: ownStdout.path, withDestinationPath: "/proc/self/fd/1")
        let toStdout = try await MatrixBinary.run(["report", runDir.path, "--format", "junit", "--out", ownStdout.path, "--force"])
        let junitBytes = try Data(contentsOf: runDir.appendingPathComponent("junit.xml"))
        #expect(toStdout.status == 0 && Data(toStdout.stdout.utf8) == junitBytes, "\(toStdout.stderr)")
        #expect((try? files.destinationOfSymbolicLink(atPath: ownStdout.path)) == "/proc/self/fd/1", "the link is kept")
        let long = dir.appendingPathComponent(String(repeating: "r", count: 245) + ".md")
        #expect(try await MatrixBinary.run(["report", runDir.path, "--out", long.path]).status == 0)

        // A folder, an empty name, and a format the extension contradicts.
        let folder = try await MatrixBinary.run(["report", runDir.path, "--out", dir.path, "--force"])
        #expect(folder.status == 64 && folder.stderr.contains("is a folder"), "\(folder.stderr)")
        #expect(try await MatrixBinary.run(["report", runDir.path, "--out", ""]).status == 64)
        let mismatch = try await MatrixBinary.run(["report", runDir.path, "--format", "html", "--out", dir.appendingPathComponent("r.xml").path])
        #expect(mismatch.status == 0 && mismatch.stderr.contains("warning: writing the html report to ") && mismatch.stderr.contains("whose extension names junit"))
    }

    @Test("compare: a fault in an app environment is app logic, exit 1; TestFlight's limits and a run against itself, exit 0")
    func compareRuns() async throws {
        let dir = try MatrixBinary.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let local = try await run(into: dir.appendingPathComponent("a"))
        let app = try await run(into: dir.appendingPathComponent("b"), ["--app-fault", "deniesGracePeriod"])
        // Present the faulty run as an app environment, as a driver run would record it.
        for file in ["run.json", "evidence.jsonl"] {
            let url = app.appendingPathComponent(file)
            let text = try String(contentsOf: url, encoding: .utf8)
                .replacingOccurrences(of: #""environment":"local""#, with: #""environment":"exec""#)
                .replacingOccurrences(of: #""environment" : "local""#, with: #""environment" : "exec""#)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        let text = try await MatrixBinary.run(["compare", local.path, app.path])
        #expect(text.status == 1, "stderr: \(text.stderr)")
        let row = try #require(text.stdout.split(separator: "\n").first { $0.hasPrefix("grace-period/plus-monthly") })
        #expect(row.contains("pass [\"plus\"]") && row.contains("fail []") && row.hasSuffix("app logic"))

        let json = try await MatrixBinary.run(["compare", local.path, app.path, "--format", "json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["compareVersion"] as? Int == 1)
        #expect((object["counts"] as? [String: Int])?["appLogic"] == 1)
        #expect(object["unexplained"] as? Int == 1)

        let testFlight = try await run(into: dir.appendingPathComponent("c"), ["--clock", "testflight"])
        let limits = try await MatrixBinary.run(["compare", local.path, testFlight.path, "--format", "markdown"])
        #expect(limits.status == 0, "stdout: \(limits.stdout)")
        #expect(limits.stdout.contains("all known environment divergences") && limits.stdout.contains("**testFlightBillingRetry**"))

        let same = try await MatrixBinary.run(["compare", local.path, local.path])
        #expect(same.status == 0 && same.stdout.contains("No differences"))
        #expect(try await MatrixBinary.run(["compare", local.path]).status == 64)
        #expect(try await MatrixBinary.run(["compare", local.path, dir.appendingPathComponent("nope").path]).status == 66)
        #expect(try await MatrixBinary.run(["compare", local.path, dir.path]).status == 65)
        // Runs with no case in common compare nothing: that is not a pass.
        let refunds = try await run(into: dir.appendingPathComponent("d"), ["--case", "refund/*"])
        let consumables = try await run(into: dir.appendingPathComponent("e"), ["--kind", "consumable"])
        let disjoint = try await MatrixBinary.run(["compare", refunds.path, consumables.path])
        #expect(disjoint.status == 65, "\(disjoint.stdout) \(disjoint.stderr)")
        #expect(disjoint.stderr.contains("error: the runs have no step in common, so nothing was compared"), "\(disjoint.stderr)")
        #expect(disjoint.stdout.contains("Nothing compared: no step is in more than one of the runs.") && !disjoint.stdout.contains("No differences"))
    }
}

/// What a JUnit document holds, parsed back with `XMLParser`.
struct JUnitCounts {
    var root = ""
    var suites = 0
    var testcases = 0
    var declaredTests = 0
    var declaredFailures = 0

    init?(_ data: Data) {
        let delegate = Delegate()
        let parser = XMLParser(data: data)
        parser.delegate = delegate
        guard parser.parse() else { return nil }
        self = delegate.counts
    }

    private final class Delegate: NSObject, XMLParserDelegate {
        var counts = JUnitCounts()

        override init() {}

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            if counts.root.isEmpty {
                counts.root = elementName
                counts.declaredTests = Int(attributes["tests"] ?? "") ?? -1
                counts.declaredFailures = Int(attributes["failures"] ?? "") ?? -1
            }
            if elementName == "testsuite" { counts.suites += 1 }
            if elementName == "testcase" { counts.testcases += 1 }
        }
    }
}

extension JUnitCounts {
    fileprivate init() {}
}
