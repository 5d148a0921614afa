import Foundation
import MatrixCore
import Reporters

/// Checks that a run's evidence agrees with itself and with its `run.json`, record by record as it is read:
/// `seq` numbers run 1, 2, 3… without gaps or repeats; each case's step appears once; each `pass` or `fail`
/// is the verdict its expected and observed values give (re-judged with the run's matrix when it is readable
/// and unchanged); and the counts of a complete run's `run.json` are the evidence's counts.
///
/// Digests show that files are unchanged since `run.json` was written; these checks catch evidence that was
/// edited and re-hashed by hand, or written by a tool that does not keep the format's rules.
struct EvidenceConsistency {
    /// At most this many problems are described; the rest are counted.
    static let describedProblems = 20

    private let groupOf: ((String) -> String?)?
    private var expectedSeq = 1
    private var seenSteps: Set<String> = []
    private var stepVerdicts: [Verdict] = []
    private var caseVerdicts: [String: Verdict] = [:]
    private var caseOrder: [String] = []
    private(set) var problems: [String] = []
    private var hiddenProblems = 0

    /// - Parameter groupOf: maps a product to its subscription group's name, from the run's matrix; `nil`
    ///   when the matrix cannot be used, and verdicts are then not re-judged.
    init(groupOf: ((String) -> String?)?) {
        self.groupOf = groupOf
    }

    /// Whether verdicts are re-judged.
    var rejudges: Bool { groupOf != nil }

    mutating func add(_ record: EvidenceRecord) {
        let place = "seq \(record.seq) (\(record.case) step \(record.step))"
        if record.seq != expectedSeq {
            problem(record.seq < expectedSeq
                    ? "\(place): seq \(record.seq) after seq \(expectedSeq - 1); records are repeated or out of order"
                    : "\(place): seq \(record.seq) after seq \(expectedSeq - 1); \(record.seq.subtractingReportingOverflow(expectedSeq).partialValue) record(s) are missing")
        }
        // Hand-edited evidence may hold any number, Int.max included.
        expectedSeq = record.seq.addingReportingOverflow(1).partialValue
        if !seenSteps.insert("\(record.case)\u{0}\(record.step)").inserted {
            problem("\(place): case \(record.case) step \(record.step) is recorded twice")
        }
        if record.verdict == .pass || record.verdict == .fail {
            if let observed = record.observed {
                if let groupOf {
                    let differences = Judge.differences(record.expected ?? Expectation(), observed, stepProduct: record.product,
                                                        groupOf: groupOf)
                    if differences.isEmpty, record.verdict == .fail {
                        problem("\(place): recorded fail, but what was observed is what was expected")
                    } else if !differences.isEmpty, record.verdict == .pass {
                        problem("\(place): recorded pass, but " + differences.map(\.sentence).joined(separator: "; "))
                    }
                }
            } else {
                problem("\(place): recorded \(record.verdict.rawValue) without an observation")
            }
        }
        stepVerdicts.append(record.verdict)
        if let worst = caseVerdicts[record.case] {
            caseVerdicts[record.case] = Verdict.summarise([worst, record.verdict])
        } else {
            caseVerdicts[record.case] = record.verdict
            caseOrder.append(record.case)
        }
    }

    /// Compares the counts of a complete run's manifest with the evidence's; call after the last record.
    mutating func finish(manifest: RunManifest) {
        if hiddenProblems > 0 { problems.append("… and \(hiddenProblems) more inconsistencies") }
        guard manifest.status == .complete else { return }
        let counts = RunCounts(cases: VerdictCounts(caseOrder.compactMap { caseVerdicts[$0] }), steps: VerdictCounts(stepVerdicts))
        // The counts are always described: they are what a reader of the summary sees.
        if counts.steps != manifest.counts.steps {
            problems.append("\(RunDirectory.manifestFileName) counts steps as \(manifest.counts.steps.phrase), the evidence holds \(counts.steps.phrase)")
        }
        if counts.cases != manifest.counts.cases {
            problems.append("\(RunDirectory.manifestFileName) counts cases as \(manifest.counts.cases.phrase), the evidence holds \(counts.cases.phrase)")
        }
    }

    private mutating func problem(_ text: String) {
        if problems.count < Self.describedProblems { problems.append(text) } else { hiddenProblems += 1 }
    }
}
