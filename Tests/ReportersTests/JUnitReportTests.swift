import Foundation
import Testing
@testable import MatrixModel
@testable import Reporters
@testable import TestSupport

@Suite("JUnit report")
struct JUnitReportTests {
    private func parse(_ records: [EvidenceRecord] = SampleRun.records) throws -> ParsedXML {
        let xml = try JUnitReport.render(records: records, manifest: SampleRun.manifest)
        return try #require(ParsedXML.parse(Data(xml.utf8)), "junit.xml is not well-formed XML")
    }

    private func int(_ element: ParsedXML, _ name: String) -> Int? {
        element.attributes[name].flatMap(Int.init)
    }

    @Test("The root counts every step: tests, failures, errors, and skipped including blocked")
    func rootCounts() throws {
        let root = try parse()
        #expect(root.name == "testsuites")
        #expect(root.attributes["name"] == "release")
        #expect(int(root, "tests") == 12)
        #expect(int(root, "failures") == 1)
        #expect(int(root, "errors") == 1)
        #expect(int(root, "skipped") == 3)
    }

    @Test("One testsuite per case, named by case id, whose counts agree with its testcases")
    func suites() throws {
        let suites = try parse().children("testsuite")
        #expect(suites.map { $0.attributes["name"] } == ["fresh-purchase/pro", "refund/pro", "renewal/vip", "family-sharing/pro"])
        for suite in suites {
            let cases = suite.children("testcase")
            #expect(int(suite, "tests") == cases.count)
            #expect(int(suite, "failures") == cases.filter { !$0.children("failure").isEmpty }.count)
            #expect(int(suite, "errors") == cases.filter { !$0.children("error").isEmpty }.count)
            #expect(int(suite, "skipped") == cases.filter { !$0.children("skipped").isEmpty }.count)
        }
        #expect(suites.map { int($0, "tests") } == [3, 3, 4, 2])
    }

    @Test("Each step is a testcase named '<case id> #<step index> <action>' with the case kind as classname")
    func testcaseNames() throws {
        let refund = try #require(try parse().children("testsuite").first { $0.attributes["name"] == "refund/pro" })
        #expect(refund.children("testcase").map { $0.attributes["name"] } == [
            "refund/pro #0 launch", "refund/pro #1 refund", "refund/pro #2 relaunch",
        ])
        #expect(refund.children("testcase").allSatisfy { $0.attributes["classname"] == "refund" })
        #expect(refund.children("testcase").allSatisfy { $0.attributes["time"] == "0.250" })
    }

    @Test("A failure gives the reason as message and expected versus observed in its body")
    func failure() throws {
        let failure = try #require(try parse().descendants("failure").first)
        #expect(failure.attributes["message"] == #"access: expected [], observed ["pro"]; notifications: expected ["REFUND"], observed []"#)
        #expect(failure.text.contains("step 1: refund com.example.myapp.pro"))
        #expect(failure.text.contains(#"expected: access []; notifications ["REFUND"]"#))
        #expect(failure.text.contains(#"observed: access ["pro"]; notifications []"#))
        #expect(failure.text.contains("reason: access: expected []"))
    }

    @Test("An error step has <error>; skipped and blocked steps have <skipped> with their reason")
    func errorAndSkipped() throws {
        let root = try parse()
        let error = try #require(root.descendants("error").first)
        #expect(error.attributes["message"] == "the driver said <timeout> & closed | code \\u001B[31m after 30 s")
        let skipped = root.descendants("skipped").compactMap { $0.attributes["message"] }
        #expect(skipped == [
            "blocked: step 1 (refund) failed",
            "blocked: step 2 (advanceTime) errored",
            "Family Sharing purchases cannot be made in the sandbox environment",
        ])
    }

    @Test("A blocked step without a reason names the earlier step that blocked it")
    func blockedWithoutReason() throws {
        var records = Array(SampleRun.records[3...5])
        records[2].reason = nil
        let skipped = try #require(try parse(records).descendants("skipped").first)
        #expect(skipped.attributes["message"] == "blocked: step 1 (refund) failed")
    }

    @Test("Properties give environment, build, device, OS and account")
    func properties() throws {
        let suite = try #require(try parse().children("testsuite").last)
        let properties = suite.children("properties").flatMap { $0.children("property") }
        let values = Dictionary(uniqueKeysWithValues: properties.compactMap { p in p.attributes["name"].map { ($0, p.attributes["value"] ?? "") } })
        #expect(values["environment"] == "sandbox")
        #expect(values["build"] == "1.4 (212)")
        #expect(values["device"] == "iPhone 16")
        #expect(values["os"] == "iOS 26.1")
        #expect(values["account"] == "member")
        #expect(values["account.state"] == "family member of organizer")
        #expect(values["account.hash"] == SampleRun.member.hash)
    }

    @Test("Markup, quotes, line breaks and control characters XML forbids are escaped")
    func escaping() throws {
        var record = SampleRun.records[4]
        record.case = #"a<b>&"c" 'd' ]]>"#
        record.reason = "line 1\nline 2\ttab \u{0}\u{7}\u{1B} \u{FFFE} end"
        let root = try parse([record])
        let suite = try #require(root.children("testsuite").first)
        #expect(suite.attributes["name"] == #"a<b>&"c" 'd' ]]>"#)
        let failure = try #require(root.descendants("failure").first)
        #expect(failure.attributes["message"] == "line 1\nline 2\ttab \\u0000\\u0007\\u001B \\uFFFE end")
        #expect(failure.text.contains("reason: line 1\nline 2\ttab \\u0000"))
    }
}
