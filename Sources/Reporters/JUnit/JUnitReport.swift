import MatrixModel

/// Renders a run as JUnit XML, `junit.xml`, for CI systems.
///
/// Shape: one `<testsuites>` named after the matrix; one `<testsuite>` per case (name = case id) with `tests`,
/// `failures`, `errors` and `skipped` counts and `<properties>` (environment, build, device, os, account,
/// account.state, account.hash when known, kind, run); one `<testcase>` per step, named
/// `<case id> #<step index> <action>` (0-based index, as in the evidence), classname = case kind, `time` in
/// seconds. A `fail` step has `<failure>`, an `error` step `<error>`, and `skipped` and `blocked` steps have
/// `<skipped>` whose message gives the reason (for `blocked`, the earlier step that blocked it).
public enum JUnitReport {
    /// `junit.xml`.
    public static let fileName = "junit.xml"

    /// The XML document, UTF-8 text ending with a newline.
    /// - Throws: as ``Reports/render(_:records:manifest:)``.
    public static func render(records: [EvidenceRecord], manifest: RunManifest) throws -> String {
        String(decoding: try Reports.render(.junit, records: records, manifest: manifest), as: UTF8.self)
    }

    /// The XML declaration and the opening `<testsuites>` with the run's totals.
    ///
    /// - Parameters:
    ///   - steps: step counts by verdict.
    ///   - milliseconds: the wall-clock time of every step added up.
    static func head(steps totals: VerdictCounts, milliseconds totalMs: Int64, manifest: RunManifest) -> String {
        #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
            + "<testsuites" + attributes([
                ("name", StepText.runName(manifest)),
                ("tests", String(totals.total)),
                ("failures", String(totals.fail)),
                ("errors", String(totals.error)),
                ("skipped", String(totals.skipped + totals.blocked)),
                ("time", StepText.seconds(totalMs)),
                ("timestamp", manifest.startedAt),
            ]) + ">\n"
    }

    /// The closing tag.
    static let tail = "</testsuites>\n"

    /// One case's `<testsuite>`.
    static func suite(_ matrixCase: CaseEvidence, overview: CaseOverview) -> String {
        let counts = overview.counts
        guard let first = matrixCase.records.first else { return "" }
        let ms = overview.wallMilliseconds
        var xml = "  <testsuite" + attributes([
            ("name", matrixCase.id),
            ("tests", String(counts.total)),
            ("failures", String(counts.fail)),
            ("errors", String(counts.error)),
            ("skipped", String(counts.skipped + counts.blocked)),
            ("time", StepText.seconds(ms)),
            ("timestamp", first.wallStart),
        ]) + ">\n"
        var properties = [
            ("environment", first.environment),
            ("build", first.build),
            ("device", first.device),
            ("os", first.os),
            ("account", matrixCase.account.alias),
            ("account.state", matrixCase.account.state),
        ]
        if let hash = matrixCase.account.hash { properties.append(("account.hash", hash)) }
        if let fault = first.appFault { properties.append(("appFault", fault)) }
        properties += [("kind", matrixCase.kind), ("run", first.run)]
        xml += "    <properties>\n"
        for (name, value) in properties {
            xml += "      <property" + attributes([("name", name), ("value", value)]) + "/>\n"
        }
        xml += "    </properties>\n"
        for record in matrixCase.records {
            xml += testCase(record, in: matrixCase)
        }
        xml += "  </testsuite>\n"
        return xml
    }

    private static func testCase(_ record: EvidenceRecord, in matrixCase: CaseEvidence) -> String {
        let open = "    <testcase" + attributes([
            ("name", "\(record.case) #\(record.step) \(record.action.action.rawValue)"),
            ("classname", record.kind),
            ("time", StepText.seconds(StepText.wallMilliseconds(record) ?? 0)),
        ])
        let reason = record.reason ?? ""
        switch record.verdict {
        case .pass:
            return open + "/>\n"
        case .fail:
            return open + ">\n      <failure" + attributes([("message", reason.isEmpty ? "failed" : reason), ("type", "fail")]) + ">"
                + Markup.text(details(record)) + "</failure>\n    </testcase>\n"
        case .error:
            return open + ">\n      <error" + attributes([("message", reason.isEmpty ? "error" : reason), ("type", "error")]) + ">"
                + Markup.text(details(record)) + "</error>\n    </testcase>\n"
        case .skipped:
            return open + ">\n      <skipped" + attributes([("message", reason.isEmpty ? "skipped" : reason)]) + "/>\n    </testcase>\n"
        case .blocked:
            return open + ">\n      <skipped" + attributes([("message", matrixCase.blockedMessage(for: record))]) + "/>\n    </testcase>\n"
        }
    }

    /// The failure or error body: the step, expected and observed values, and the reason, one per line.
    static func details(_ record: EvidenceRecord) -> String {
        var lines = ["step \(record.step): \(StepText.describe(record.action))"]
        let rows = StepText.comparisons(record)
        if !rows.isEmpty {
            lines.append("expected: " + rows.map { "\($0.field) \($0.expected)" }.joined(separator: "; "))
            lines.append("observed: " + rows.map { "\($0.field) \($0.observed)" }.joined(separator: "; "))
        }
        if let reason = record.reason { lines.append("reason: \(reason)") }
        return lines.joined(separator: "\n")
    }

    private static func attributes(_ pairs: [(String, String)]) -> String {
        pairs.map { " \($0.0)=\"\(Markup.attribute($0.1))\"" }.joined()
    }
}
