import EvidenceArchive
import EvidenceStore
import Foundation
import MatrixJSON

extension RunVerificationReport {
    /// One line per file and per record, for stdout; `onlyProblems` keeps the lines that are not ok.
    ///
    /// Each line is one line whatever the evidence holds: run ids, case ids, paths and messages quoting them
    /// come from files an attacker may have written, so every character a terminal would act on (escape
    /// sequences, carriage returns, newlines, bidirectional overrides) is shown as `\u{…}` (``TerminalText``).
    package func lines(onlyProblems: Bool) -> [String] {
        rawLines(onlyProblems: onlyProblems).map { TerminalText.visible($0) }
    }

    private func rawLines(onlyProblems: Bool) -> [String] {
        var lines: [String] = []
        for line in files where !onlyProblems || line.finding.status != .ok {
            let finding = line.finding
            let label = finding.status == .ok ? "ok" : Self.fileLabel(finding.status)
            lines.append("\(Self.padded(line.source, 13)) \(Self.padded(label, 9)) \(finding.path)\(Self.fileDetail(finding, source: line.source))")
        }
        for record in records {
            let failed = record.failed
            if onlyProblems, failed.isEmpty { continue }
            let seq = String(record.seq)
            let head = "record \(String(repeating: " ", count: max(0, 4 - seq.count)))\(seq)  \(failed.isEmpty ? "ok  " : "FAIL")  \(record.caseID) #\(record.step) \(record.action)"
            if record.items.isEmpty {
                lines.append(head + " (no signed data)")
            } else if failed.isEmpty {
                let kinds = record.items.map(\.kind)
                let unchecked = record.items.filter { $0.outcome.status == .notChecked }.count
                let verb = unchecked == 0 ? "verified" : "decoded, \(unchecked) without signature check"
                lines.append(head + ": \(record.items.count) \(verb) (\(kinds.joined(separator: ", ")))")
            } else {
                for item in failed {
                    lines.append(head + ": \(item.kind) \(item.index + 1) of \(record.items.count): \(item.outcome.failureText)")
                }
            }
        }
        for text in inconsistencies { lines.append("inconsistent  \(text)") }
        for comparison in mismatchedReports { lines.append("inconsistent  \(Self.mismatch(comparison))") }
        return lines
    }

    /// Why a report rendered again is not the report run.json lists or the file present.
    static func mismatch(_ report: RederivedReports.Comparison) -> String {
        let manifest = RunDirectory.manifestFileName
        var text = "\(report.path) does not match the evidence: rendered from \(manifest) and \(RunDirectory.evidenceFileName), its SHA-256 is "
            + "\(report.rendered.prefix(16))…"
        if report.rendered != report.listed {
            text += ", \(manifest) lists \(report.listed.prefix(16))…"
            if let actual = report.actual, actual != report.listed { text += " and the file's is \(actual.prefix(16))…" }
        } else if let actual = report.actual {
            text += " as \(manifest) lists, but the file's is \(actual.prefix(16))…"
        }
        return text
    }

    /// The closing sentence for stderr, on one line (see ``lines(onlyProblems:)``).
    package var summary: String {
        TerminalText.visible(rawSummary)
    }

    private var rawSummary: String {
        let subject = "\(targetKind) \(target)" + (runId.map { " (run \($0))" } ?? "")
        if passed {
            let fileCount = Set(files.map(\.finding.path)).count
            let unchecked = uncheckedItemCount
            let items = signedItemCount - unchecked
            var text = "\(subject) is unaltered\(status == "interrupted" ? " but incomplete (the run was interrupted)" : ""): \(fileCount) files match their SHA-256; \(records.count) records, "
                + "\(items) signed item\(items == 1 ? "" : "s") verified"
            if items > 0 { text += " to \(roots)" }
            if unchecked > 0 { text += ", \(unchecked) decoded without signature check" }
            if !reports.isEmpty { text += "; \(reports.count) \(reports.count == 1 ? "report matches" : "reports match") the evidence" }
            return text
        }
        var reasons: [String] = []
        let grouped = Dictionary(grouping: badFiles, by: { $0.finding.status })
        for status in FileFinding.Status.allCases where status != .ok {
            guard let lines = grouped[status] else { continue }
            let names = Array(Set(lines.map(\.finding.path))).sorted()
            reasons.append("\(Self.fileLabel(status).lowercased()): \(names.joined(separator: ", "))")
        }
        let failing = failedRecords
        if !failing.isEmpty {
            let count = failing.reduce(0) { $0 + $1.failed.count }
            reasons.append("\(count) signed item\(count == 1 ? "" : "s") in \(failing.count) record\(failing.count == 1 ? "" : "s") failed verification")
        }
        if !inconsistencies.isEmpty {
            reasons.append("the evidence is inconsistent (see the lines marked inconsistent)")
        }
        let mismatched = mismatchedReports.map(\.path)
        if !mismatched.isEmpty {
            reasons.append("\(mismatched.joined(separator: ", ")) \(mismatched.count == 1 ? "does" : "do") not match the evidence")
        }
        reasons += problems
        // A run that stopped (killed, or while writing its reports) is interrupted, not tampered with: what it was
        // writing is UNFINISHED, not EXTRA, and the sentence says what to do. Nothing covers its final files, so
        // it still does not verify.
        if let notEnded {
            reasons.append("the run was interrupted (\(notEnded)): resume it to finish it")
        }
        return "\(subject) does not verify; " + reasons.joined(separator: "; ")
    }

    /// The report as JSON for `--format json`.
    package var json: JSONText {
        JSONText.fields([
            "target": JSONText.string(target),
            "type": JSONText.string(targetKind),
            "runId": JSONText.optional(runId),
            "environment": JSONText.optional(environment),
            "status": JSONText.optional(status),
            "passed": JSONText.bool(passed),
            "roots": JSONText.string(roots),
            "files": JSONText.array(files.map { line in
                JSONText.fields([
                    "list": JSONText.string(line.source),
                    "path": JSONText.string(line.finding.path),
                    "status": JSONText.string(line.finding.status.rawValue),
                    "expectedSHA256": line.finding.expected.map(JSONText.string),
                    "actualSHA256": line.finding.actual.map(JSONText.string),
                ])
            }),
            "records": JSONText.array(records.map { record in
                JSONText.fields([
                    "seq": JSONText.int(record.seq),
                    "case": JSONText.string(record.caseID),
                    "step": JSONText.int(record.step),
                    "action": JSONText.string(record.action),
                    "signedData": JSONText.array(record.items.map { item in
                        JSONText.fields([
                            "kind": JSONText.string(item.kind),
                            "status": JSONText.string(item.outcome.status.rawValue),
                            "code": item.outcome.code.map(JSONText.string),
                            "message": item.outcome.message.map(JSONText.string),
                        ])
                    }),
                ])
            }),
            "problems": JSONText.array(problems.map(JSONText.string)),
            "inconsistencies": JSONText.array(inconsistencies.map(JSONText.string)),
            "reports": JSONText.array(reports.map { report in
                JSONText.fields([
                    "path": JSONText.string(report.path),
                    "matchesEvidence": JSONText.bool(report.matches),
                    "renderedSHA256": JSONText.string(report.rendered),
                    "listedSHA256": JSONText.string(report.listed),
                    "actualSHA256": report.actual.map(JSONText.string),
                ])
            }),
            "notes": JSONText.array(notes.map(JSONText.string)),
            "warnings": JSONText.array(warnings.map(JSONText.string)),
        ])
    }

    /// `text` followed by spaces up to `width`; longer text is kept whole.
    private static func padded(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    package static func fileLabel(_ status: FileFinding.Status) -> String {
        switch status {
        case .ok: "ok"
        case .altered: "ALTERED"
        case .missing: "MISSING"
        case .extra: "EXTRA"
        case .notRegularFile: "NOT-FILE"
        case .unreadable: "UNREADABLE"
        case .unverifiable: "UNVERIFIABLE"
        case .unfinished: "UNFINISHED"
        }
    }

    private static func fileDetail(_ finding: FileFinding, source: String) -> String {
        switch finding.status {
        case .ok: ""
        case .altered: ": SHA-256 is \(finding.actual?.prefix(16) ?? "?")…, \(source) lists \(finding.expected?.prefix(16) ?? "?")…"
        case .missing: ": listed in \(source) but not present"
        case .extra: ": present but not listed in \(source)"
        case .notRegularFile: ": not a regular file (a symbolic link or device)"
        case .unreadable: ": cannot be read"
        case .unfinished: ": written while the run was stopping, before \(source) listed it; no SHA-256 covers it, and resuming the run "
            + "writes it again"
        case .unverifiable: ": \(source) lists it as it was when the run started, and the run has not ended, so no SHA-256 of "
            + "its final bytes was recorded and nothing shows its records unaltered; resume the run to finish it"
        }
    }
}
