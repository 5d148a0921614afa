import Foundation
import Testing
@testable import MatrixCLI
@testable import TestSupport

/// Every string from a file, a driver, a server or an archive reaches the terminal as text: nothing it holds can
/// move the cursor, erase a line, colour a word, or reorder what is shown.
@Suite("Terminal spoofing")
struct TerminalSpoofingTests {
    /// Cursor up, erase the line, then a green "verified:", a one-byte CSI (C1), a right-to-left override and a
    /// line separator: what a crafted run id used to erase the ALTERED line with.
    static let hostile = "x\u{1B}[1A\u{1B}[2K\r\u{1B}[32mverified:\u{1B}[0m all good\u{9B}2K\u{202E}exe.\u{2028}\u{85}"

    /// The characters a terminal acts on; none may be in what `matrix` writes.
    static func unsafe(in text: String) -> [String] {
        text.unicodeScalars.filter { scalar in
            (scalar.value < 0x20 && scalar != "\n" && scalar != "\t") || (0x7F...0x9F).contains(scalar.value)
                || [0x202E, 0x2028, 0x2029, 0x200F].contains(scalar.value)
        }.map { "U+" + String($0.value, radix: 16, uppercase: true) }
    }

    @Test("Every console line, error, warning, prompt and text output escapes what it prints; as text")
    func console() throws {
        let directory = try MatrixBinary.scratchDirectory("matrix-console")
        defer { try? FileManager.default.removeItem(at: directory) }
        let outURL = directory.appendingPathComponent("out")
        let errURL = directory.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        let console = Console(environment: ["NO_COLOR": "1"], out: out, err: err)
        console.verbose = true
        console.info(Self.hostile)
        console.info("verified:", .green, Self.hostile)
        console.info([.text(Self.hostile), .painted(Self.hostile, .red)])
        console.error(Self.hostile)
        console.warning(Self.hostile)
        console.detail("driver: " + Self.hostile)
        console.prompt(Self.hostile + "\n")
        console.outputText(Self.hostile + "\n")
        try out.close()
        try err.close()
        let stderr = String(decoding: try Data(contentsOf: errURL), as: UTF8.self)
        let stdout = String(decoding: try Data(contentsOf: outURL), as: UTF8.self)
        #expect(Self.unsafe(in: stderr).isEmpty, "\(Self.unsafe(in: stderr))")
        #expect(Self.unsafe(in: stdout).isEmpty, "\(Self.unsafe(in: stdout))")
        #expect(stderr.components(separatedBy: #"x\u{1B}[1A\u{1B}[2K\u{D}\u{1B}[32mverified:"#).count - 1 == 8, "\(stderr)")
        #expect(stdout.contains(#"\u{202E}exe.\u{2028}\u{85}"#))
    }

    @Test("A crafted run id can neither erase the ALTERED line nor print a green verified")
    func verifyRunId() async throws {
        let release = try await ReleaseRun.copy()
        defer { release.remove() }
        try VerifyMissingFieldTests.editManifest(release.run) { $0["runId"] = Self.hostile }
        let summary = release.run.appendingPathComponent("summary.md")
        try (try String(contentsOf: summary, encoding: .utf8) + "edited\n").write(to: summary, atomically: true, encoding: .utf8)
        for options in [[], ["--quiet"]] {
            let result = try await CapturedRun.run(["verify", release.run.path] + options)
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stdout.contains("run.json      ALTERED   summary.md"), "\(result.stdout)")
            #expect(Self.unsafe(in: result.stdout).isEmpty && Self.unsafe(in: result.stderr).isEmpty,
                    "\(Self.unsafe(in: result.stdout)) \(Self.unsafe(in: result.stderr))")
            // The summary stays one line: the run id's separators and newlines are shown, not obeyed.
            let closing = try #require(result.stderr.split(separator: "\n").last { $0.hasPrefix("error: ") })
            #expect(closing.contains(#"(run x\u{1B}[1A\u{1B}[2K\u{D}\u{1B}[32mverified:\u{1B}[0m all good\u{9B}2K\u{202E}exe.\u{2028}\u{85})"#),
                    "\(closing)")
            #expect(closing.contains("does not verify"))
        }
    }

    @Test("compare shows a crafted case id as text")
    func compareCaseId() async throws {
        let release = try await ReleaseRun.copy()
        defer { release.remove() }
        let other = release.root.appendingPathComponent("other")
        try FileManager.default.copyItem(at: release.run, to: other)
        let evidence = other.appendingPathComponent("evidence.jsonl")
        var text = try String(contentsOf: evidence, encoding: .utf8)
        text = text.replacingOccurrences(of: #""case":"fresh-purchase/pro""#, with: #""case":"fresh-purchase/pro\u001b]0;pwned\u0007\u202e""#)
        try text.write(to: evidence, atomically: true, encoding: .utf8)
        let result = try await CapturedRun.run(["compare", release.run.path, other.path])
        #expect(result.stdout.contains(#"fresh-purchase/pro\u{1B}]0;pwned\u{7}\u{202E}"#), "\(result.stdout)")
        #expect(Self.unsafe(in: result.stdout).isEmpty && Self.unsafe(in: result.stderr).isEmpty,
                "\(Self.unsafe(in: result.stdout)) \(Self.unsafe(in: result.stderr))")
    }
}
