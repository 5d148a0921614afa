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

    /// One case's `<testsuite>`, appended to `xml`.
    ///
    /// - Parameter stepMilliseconds: each record's wall-clock time (``StepText/wallMilliseconds(_:)``), in order.
    static func suite(_ matrixCase: CaseEvidence, overview: CaseOverview, stepMilliseconds: [Int64?], into xml: inout MarkupBuffer) {
        let counts = overview.counts
        guard let first = matrixCase.records.first else { return }
        xml.append("  <testsuite")
        xml.attribute("name", matrixCase.id)
        xml.attribute("tests", counts.total)
        xml.attribute("failures", counts.fail)
        xml.attribute("errors", counts.error)
        xml.attribute("skipped", counts.skipped + counts.blocked)
        xml.attribute("time", StepText.seconds(overview.wallMilliseconds))
        xml.attribute("timestamp", first.wallStart)
        xml.append(">\n    <properties>\n")
        func property(_ name: String, _ value: String) {
            xml.append("      <property")
            xml.attribute("name", name)
            xml.attribute("value", value)
            xml.append("/>\n")
        }
        property("environment", first.environment)
        property("build", first.build)
        property("device", first.device)
        property("os", first.os)
        property("account", matrixCase.account.alias)
        property("account.state", matrixCase.account.state)
        if let hash = matrixCase.account.hash { property("account.hash", hash) }
        if let fault = first.appFault { property("appFault", fault) }
        property("kind", matrixCase.kind)
        property("run", first.run)
        xml.append("    </properties>\n")
        for (index, record) in matrixCase.records.enumerated() {
            testCase(record, milliseconds: index < stepMilliseconds.count ? stepMilliseconds[index] : StepText.wallMilliseconds(record),
                     in: matrixCase, into: &xml)
        }
        xml.append("  </testsuite>\n")
    }

    private static func testCase(_ record: EvidenceRecord, milliseconds: Int64?, in matrixCase: CaseEvidence, into xml: inout MarkupBuffer) {
        // The name is `<case> #<step> <action>`; escaping works character by character, so its parts are
        // escaped one by one.
        xml.append("    <testcase name=\"")
        xml.attribute(record.case)
        xml.append(" #")
        xml.int(record.step)
        xml.append(" ")
        xml.attribute(record.action.action.rawValue)
        xml.append("\"")
        xml.attribute("classname", record.kind)
        xml.attribute("time", StepText.seconds(milliseconds ?? 0))
        let reason = record.reason ?? ""
        switch record.verdict {
        case .pass:
            xml.append("/>\n")
        case .fail:
            xml.append(">\n      <failure")
            xml.attribute("message", reason.isEmpty ? "failed" : reason)
            xml.append(" type=\"fail\">")
            xml.text(details(record))
            xml.append("</failure>\n    </testcase>\n")
        case .error:
            xml.append(">\n      <error")
            xml.attribute("message", reason.isEmpty ? "error" : reason)
            xml.append(" type=\"error\">")
            xml.text(details(record))
            xml.append("</error>\n    </testcase>\n")
        case .skipped:
            xml.append(">\n      <skipped")
            xml.attribute("message", reason.isEmpty ? "skipped" : reason)
            xml.append("/>\n    </testcase>\n")
        case .blocked:
            xml.append(">\n      <skipped")
            xml.attribute("message", matrixCase.blockedMessage(for: record))
            xml.append("/>\n    </testcase>\n")
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
