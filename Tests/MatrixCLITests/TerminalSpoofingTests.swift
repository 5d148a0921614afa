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
        text = text.replacingOccurrences(of: #""case":"fresh-purchase/pro""#,
                                         with: #""case":"fresh-purchase/pro\u001b]0;pwned\u0007\u202e\nverified: FORGED""#)
        try text.write(to: evidence, atomically: true, encoding: .utf8)
        let result = try await CapturedRun.run(["compare", release.run.path, other.path])
        #expect(result.stdout.contains(#"fresh-purchase/pro\u{1B}]0;pwned\u{7}\u{202E}\u{A}verified: FORGED"#), "\(result.stdout)")
        #expect(!result.stdout.split(separator: "\n").contains { $0.hasPrefix("verified: FORGED") }, "\(result.stdout)")
        #expect(Self.unsafe(in: result.stdout).isEmpty && Self.unsafe(in: result.stderr).isEmpty,
                "\(Self.unsafe(in: result.stdout)) \(Self.unsafe(in: result.stderr))")
    }

    @Test("plan shows a case id with a line break on the case's own line; no value starts a line of its own")
    func planCaseId() async throws {
        let directory = try MatrixBinary.scratchDirectory("matrix-plan-spoof")
        defer { try? FileManager.default.removeItem(at: directory) }
        let release = Fixtures.packageDirectory.appendingPathComponent("matrices")
        for name in try FileManager.default.contentsOfDirectory(atPath: release.path) {
            try FileManager.default.copyItem(at: release.appendingPathComponent(name), to: directory.appendingPathComponent(name))
        }
        let matrix = directory.appendingPathComponent("release.json")
        let text = try String(contentsOf: matrix, encoding: .utf8)
        try text.replacingOccurrences(of: #""id": "fresh-purchase/pro""#, with: #""id": "fresh-purchase/pro\nverified: FORGED\u202e""#)
            .write(to: matrix, atomically: true, encoding: .utf8)
        let result = try await CapturedRun.run(["plan", matrix.path, "--env", "sandbox"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains(#"fresh-purchase/pro\u{A}verified: FORGED\u{202E}"#), "\(result.stdout)")
        #expect(!result.stdout.split(separator: "\n").contains { $0.hasPrefix("verified: FORGED") }, "\(result.stdout)")
        #expect(Self.unsafe(in: result.stdout).isEmpty, "\(Self.unsafe(in: result.stdout))")
    }

    #if os(Linux)
    /// A raw pseudo-terminal: its primary side, to read what is shown, and its secondary side, the terminal.
    static func pseudoTerminal() throws -> (primary: Int32, secondary: Int32) {
        // Glibc's module does not import posix_openpt and its kin, so they are looked up.
        typealias Unlock = @convention(c) (Int32) -> Int32
        typealias Name = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?
        let unlockpt = unsafeBitCast(try #require(dlsym(nil, "unlockpt")), to: Unlock.self)
        let ptsname = unsafeBitCast(try #require(dlsym(nil, "ptsname")), to: Name.self)
        let primary = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        try #require(primary >= 0 && unlockpt(primary) == 0)
        let name = try #require(ptsname(primary).map { String(cString: $0) })
        let secondary = open(name, O_RDWR | O_NOCTTY)
        try #require(secondary >= 0)
        var raw = termios()
        tcgetattr(secondary, &raw)
        cfmakeraw(&raw)
        tcsetattr(secondary, TCSANOW, &raw)
        return (primary, secondary)
    }

    @Test("matrix report to a terminal shows a crafted case id as text; the Markdown itself shows a bidirectional override as text")
    func reportToTerminal() async throws {
        let release = try await ReleaseRun.copy()
        defer { release.remove() }
        let evidence = release.run.appendingPathComponent("evidence.jsonl")
        let text = try String(contentsOf: evidence, encoding: .utf8)
            .replacingOccurrences(of: #""case":"fresh-purchase/pro""#, with: #""case":"fresh-purchase/pro\u202e\u001b[2K""#)
        try text.write(to: evidence, atomically: true, encoding: .utf8)
        let arguments = ["report", release.run.path, "--format", "markdown"]
        let shown = try await HeavyWork.run { () throws -> String in
            let (primary, secondary) = try Self.pseudoTerminal()
            defer { close(primary) }
            let process = Process()
            process.executableURL = MatrixBinary.url
            process.arguments = arguments
            process.environment = MatrixBinary.environment()
            process.standardOutput = FileHandle(fileDescriptor: secondary, closeOnDealloc: false)
            process.standardError = FileHandle.nullDevice
            try process.run()
            close(secondary)
            // Read until the last holder of the terminal closes it (EIO), so that the report never fills it.
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = read(primary, &buffer, buffer.count)
                if count <= 0 { break }
                bytes += buffer[..<count]
            }
            process.waitUntilExit()
            return String(decoding: bytes, as: UTF8.self)
        }
        // The Markdown renderer writes ESC and the override as \u001B and \u202E itself, for a terminal and a file
        // alike: a job summary on GitHub must not read backwards either.
        #expect(shown.contains(#"fresh-purchase/pro\u202E\u001B[2K"#), "\(shown.prefix(2000))")
        #expect(Self.unsafe(in: shown).isEmpty, "\(Self.unsafe(in: shown))")
        let piped = try await MatrixBinary.run(arguments)
        #expect(piped.status == 0 && piped.stdout.contains(#"fresh-purchase/pro\u202E\u001B[2K"#), "\(piped.stderr)")
    }

    @Test("An artifact written to a terminal is shown as text; to a file or a pipe it is written as it is")
    func artifactToTerminal() throws {
        let (primary, secondary) = try Self.pseudoTerminal()
        defer { close(primary) }
        let terminal = FileHandle(fileDescriptor: secondary, closeOnDealloc: true)
        let report = "| case |\n| fresh-purchase/pro\u{202E}\u{1B}[2K |\n"
        Console(environment: ["NO_COLOR": "1"], out: terminal, err: terminal).output(report)
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(primary, &buffer, buffer.count)
        let shown = String(decoding: buffer[..<max(count, 0)], as: UTF8.self)
        #expect(shown == "| case |\n| fresh-purchase/pro\\u{202E}\\u{1B}[2K |\n", "\(shown.debugDescription)")
        // To a file, the artifact's bytes.
        let directory = try MatrixBinary.scratchDirectory("matrix-artifact")
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("out.md")
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let file = try FileHandle(forWritingTo: url)
        Console(environment: [:], out: file, err: file).output(report)
        try file.close()
        let written = try String(contentsOf: url, encoding: .utf8)
        #expect(written == report)
    }
    #endif
}
