import EvidenceStore
import EvidenceVerification
import Foundation
import MatrixJSON
import SignedData
import Signing

/// `matrix verify --batch FILE`: verifies every JWS of a file, one per line, with one verifier (so verified
/// chains are cached across lines), and reports failures and the throughput.
struct BatchVerification {
    let console: Console
    let settings: VerifyCommand.Settings

    /// One line that did not verify.
    struct Failure {
        var line: Int
        var outcome: JWSOutcome
    }

    /// - Throws: ``CommandFailure`` 66 when the file cannot be read, 65 when it holds no JWS line.
    func run(_ path: String) throws(CommandFailure) -> ExitCode {
        let bytes: [UInt8]
        if path == "-" {
            bytes = try InputFiles.readStandardInput(what: "the batch")
        } else {
            bytes = try InputFiles.readArgument(path, what: "batch file")
        }
        // Blank lines and lines starting with # are skipped; line numbers count every line. Split and trimmed on
        // bytes: a file of JWS is ASCII, and Character-based splitting would walk grapheme clusters.
        var lines: [(number: Int, text: String)] = []
        for (offset, line) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
            guard let first = line.firstIndex(where: { !isSpace($0) }), let last = line.lastIndex(where: { !isSpace($0) }),
                  line[first] != UInt8(ascii: "#") else { continue }
            lines.append((offset + 1, String(decoding: line[first ... last], as: UTF8.self)))
        }
        guard !lines.isEmpty else {
            throw CommandFailure("\(path) holds no JWS (one compact JWS per line expected)", code: .dataError)
        }
        let checker = try settings.checker()

        var failures: [Failure] = []
        var verified = 0
        var unchecked = 0
        var notes: [String] = []
        let clock = ContinuousClock()
        let started = clock.now
        for line in lines {
            let outcome = checker.check(line.text, kind: settings.kind)
            switch outcome.status {
            case .verified: verified += 1
            case .notChecked: unchecked += 1
            case .failed: failures.append(Failure(line: line.number, outcome: outcome))
            }
            for note in outcome.notes + (outcome.hint.map { ["hint: " + $0] } ?? []) where !notes.contains(note) { notes.append(note) }
        }
        let elapsed = clock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let rate = seconds > 0 ? Double(lines.count) / seconds : 0

        if settings.json {
            let document = JSONText.fields([
                "file": JSONText.string(path),
                "total": JSONText.int(lines.count),
                "verified": JSONText.int(verified),
                "notChecked": JSONText.int(unchecked),
                "failed": JSONText.int(failures.count),
                "seconds": JSONText.decimal(seconds),
                "perSecond": JSONText.int(Int(rate.rounded())),
                "roots": JSONText.string(checker.roots.summary),
                "failures": JSONText.array(failures.map { failure in
                    JSONText.fields([
                        "line": JSONText.int(failure.line),
                        "kind": JSONText.optional(failure.outcome.kind?.rawValue),
                        "code": JSONText.optional(failure.outcome.code),
                        "message": JSONText.optional(failure.outcome.message),
                    ])
                }),
                "notes": JSONText.array(notes.map(JSONText.string)),
            ])
            console.output(document.text(.expanded) + "\n")
        } else if !failures.isEmpty {
            let text = failures.map { "line \($0.line): \($0.outcome.kind?.rawValue ?? "JWS"): \($0.outcome.failureText)" }
            console.outputText(text.joined(separator: "\n") + "\n")
        }
        for note in notes { console.info("note: \(note)") }
        let timing = String(format: "%.3f s, %.0f per second", seconds, rate)
        var summary = "\(lines.count) JWS from \(path): \(verified) verified"
        if unchecked > 0 { summary += ", \(unchecked) decoded without signature check" }
        if failures.isEmpty {
            console.info("verified:", .green, "\(summary) (\(timing))", always: true)
            return .success
        }
        console.error("\(summary), \(failures.count) failed (\(timing))")
        return .failure
    }
}
