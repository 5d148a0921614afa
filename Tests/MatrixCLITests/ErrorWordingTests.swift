import Foundation
@testable import MatrixCLI
import SignedData
import Signing
@testable import TestSupport
import Testing

/// An error names what is wrong, on one line of its own: a path that holds a line break cannot start a line that
/// passes for `matrix`'s, and a reason is never one that misleads (invalid UTF-8 called a number or a missing
/// field, a device called a permission problem).
@Suite("Error wording")
struct ErrorWordingTests {
    @Test("A path with a line break in it stays on the error's line, escaped, and cannot forge a second error line")
    func lineBreakInPath() async throws {
        let directory = try MatrixBinary.scratchDirectory("matrix-wording")
        defer { try? FileManager.default.removeItem(at: directory) }
        let forged = directory.appendingPathComponent("a\nerror: all evidence verified").path
        for arguments in [["verify", forged], ["report", forged], ["run", forged]] {
            let result = try await CapturedRun.run(arguments)
            #expect(result.status != 0)
            let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: true)
            #expect(!lines.contains { $0.hasPrefix("error: all evidence verified") }, "\(arguments[0]): \(result.stderr)")
            #expect(result.stderr.contains(#"a\u{A}error: all evidence verified"#), "\(arguments[0]): \(result.stderr)")
        }
    }

    @Test("A failure's hint is a line of its own; the value the message quotes is escaped")
    func hintOnItsOwnLine() {
        let failure = CommandFailure("cannot write evidence: disk full in a\nb", hint: "Evidence written so far is kept in /runs/x",
                                     code: .ioError)
        #expect(failure.printed == "cannot write evidence: disk full in a\\u{A}b\nEvidence written so far is kept in /runs/x")
    }

    @Test("Invalid UTF-8 where a number goes is named as invalid UTF-8 with its byte, not as a malformed number")
    func invalidUTF8InNumber() async throws {
        let directory = try MatrixBinary.scratchDirectory("matrix-wording")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("number.json")
        try Data(Array(#"{"a": 1."#.utf8) + [0xFF] + Array("}".utf8)).write(to: file)
        let result = try await CapturedRun.run(["validate", file.path])
        #expect(result.status == 65)
        #expect(result.stdout.contains("invalid UTF-8 byte 0xFF") || result.stderr.contains("invalid UTF-8 byte 0xFF"),
                "\(result.stdout)\(result.stderr)")
        #expect(!(result.stdout + result.stderr).contains("fractional"))
    }

    @Test("Invalid UTF-8 in a JWS payload is named, not reported as a missing environment")
    func invalidUTF8InPayload() async throws {
        let directory = try MatrixBinary.scratchDirectory("matrix-wording")
        defer { try? FileManager.default.removeItem(at: directory) }
        let header = Base64URL.encode(Array(#"{"alg":"ES256"}"#.utf8))
        let payload = Base64URL.encode(Array(#"{"environment":"Sandbox","price":1"#.utf8) + [0xFF] + Array("}".utf8))
        let file = directory.appendingPathComponent("bad.jws")
        try "\(header).\(payload).AAAA\n".write(to: file, atomically: true, encoding: .utf8)
        let result = try await CapturedRun.run(["verify", file.path])
        #expect(result.status != 0)
        #expect(result.stderr.contains("invalid UTF-8 byte 0xFF"), "\(result.stderr)")
        #expect(!result.stderr.contains("environment is missing"), "\(result.stderr)")
    }

    #if os(Linux)
    @Test("A device given as input is 'not a regular file', never a permission problem")
    func deviceIsNotRegular() async throws {
        let result = try await CapturedRun.run(["verify", "/dev/zero"])
        #expect(result.status == 66)
        #expect(result.stderr.contains("/dev/zero: not a regular file"), "\(result.stderr)")
        #expect(!result.stderr.lowercased().contains("permission"), "\(result.stderr)")
    }
    #endif
}
