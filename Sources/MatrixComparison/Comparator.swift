import MatrixModel

/// Joins runs on case id and step index and classifies every step whose verdicts differ (docs/compare.md).
///
/// Pure: it reads no files and keeps no state. The rules are listed in docs/compare.md.
public enum Comparator {
    /// Compares `runs` (at least two make sense; fewer give no differences).
    ///
    /// A step is a difference when some run did not pass it, unless every run skipped it, or every run that did
    /// not pass it is `blocked` after an earlier difference of the case (it is then listed in that difference's
    /// `blockedAfter`). Cases and steps missing from some runs, different matrix digests and runs that did not
    /// complete are reported in ``Comparison/unmatched`` and ``Comparison/warnings``.
    public static func compare(_ runs: [ComparedRun]) -> Comparison {
        let labels = self.labels(runs.map(\.environment))
        let roles = runs.map { EnvironmentRole(environment: $0.environment) }
        let indexed = runs.map(IndexedRun.init)

        var caseOrder: [String] = []
        var seenCases: Set<String> = []
        for run in indexed {
            for id in run.caseOrder where seenCases.insert(id).inserted { caseOrder.append(id) }
        }

        var differences: [Comparison.Difference] = []
        var unmatched: [Comparison.Unmatched] = []
        var casesCompared = 0
        var stepsCompared = 0
        for caseID in caseOrder {
            let withCase = indexed.indices.filter { indexed[$0].byCase[caseID] != nil }
            // A run that did not select the case does not miss it.
            let missing = runs.indices.filter { !withCase.contains($0) && runs[$0].selectedCases?.contains(caseID) ?? true }
            if !missing.isEmpty {
                unmatched.append(Comparison.Unmatched(case: caseID, step: nil, presentIn: withCase.map { labels[$0] },
                                                      missingFrom: missing.map { labels[$0] }))
            }
            guard withCase.count >= 2 else { continue }
            casesCompared += 1
            let steps = Set(withCase.flatMap { indexed[$0].byCase[caseID]?.map(\.step) ?? [] }).sorted()
            var lastDifference: Int?
            for step in steps {
                let present = withCase.filter { indexed[$0].record(caseID, step) != nil }
                if present.count < withCase.count {
                    unmatched.append(Comparison.Unmatched(case: caseID, step: step, presentIn: present.map { labels[$0] },
                                                          missingFrom: withCase.filter { !present.contains($0) }.map { labels[$0] }))
                }
                guard present.count >= 2 else { continue }
                stepsCompared += 1
                let cells = present.compactMap { index in
                    indexed[index].record(caseID, step).map {
                        StepCell(label: labels[index], role: roles[index], record: $0,
                                 caseRecords: indexed[index].byCase[caseID] ?? [])
                    }
                }
                switch judge(cells, afterDifference: lastDifference != nil) {
                case .same:
                    break
                case .blockedAfterDifference:
                    if let last = lastDifference { differences[last].blockedAfter.append(step) }
                case .differs(let classification, let explanation, let divergences, let judged):
                    let first = cells[0].record
                    differences.append(Comparison.Difference(
                        case: caseID, kind: first.kind, step: step, action: first.action.action.rawValue, product: first.product,
                        classification: classification, explanation: explanation,
                        divergences: divergences.map(Comparison.DivergenceNote.init),
                        cells: judged, blockedAfter: []))
                    lastDifference = differences.count - 1
                }
            }
        }

        var counts: [String: Int] = [:]
        for classification in Classification.allCases {
            counts[classification.rawValue] = differences.filter { $0.classification == classification }.count
        }
        let summaries = runs.indices.map { index in
            Comparison.Run(label: labels[index], path: runs[index].path, runId: runs[index].runId,
                           environment: runs[index].environment, role: roles[index], build: runs[index].build,
                           clock: runs[index].clock, matrixName: runs[index].matrixName,
                           matrixSHA256: runs[index].matrixSHA256, status: runs[index].status, steps: indexed[index].count,
                           selection: runs[index].selection, selectedCases: runs[index].selectedCases?.count)
        }
        let differ = Set(runs.map(\.matrixSHA256)).count > 1
        return Comparison(
            compareVersion: Comparison.currentVersion, runs: summaries, matrixVersionsDiffer: differ,
            warnings: warnings(summaries, matrixVersionsDiffer: differ, unmatched: unmatched),
            casesCompared: casesCompared, stepsCompared: stepsCompared, differences: differences, unmatched: unmatched,
            counts: counts, unexplained: differences.filter { !$0.classification.isExplained }.count)
    }

    /// Column names: the environment, with `#1`, `#2`… when several runs share it.
    static func labels(_ environments: [String]) -> [String] {
        var totals: [String: Int] = [:]
        for name in environments { totals[name, default: 0] += 1 }
        var seen: [String: Int] = [:]
        return environments.map { name in
            guard totals[name, default: 0] > 1 else { return name }
            seen[name, default: 0] += 1
            return "\(name)#\(seen[name, default: 0])"
        }
    }

    // MARK: Judging one step

    /// One run's record of the step being judged.
    struct StepCell {
        var label: String
        var role: EnvironmentRole
        var record: EvidenceRecord
        var caseRecords: [EvidenceRecord]
        var divergence: KnownDivergence? = nil

        var verdict: Verdict { record.verdict }

        /// Whether the run passed the step having observed some of what it expected: a pass that judged nothing
        /// (``EvidenceRecord/passedWithNothingObserved``) shows nothing about the step's behaviour there.
        var judgedPass: Bool { record.verdict == .pass && !record.passedWithNothingObserved }

        var cell: Comparison.Cell {
            // Access the environment did not observe is not shown as observed empty.
            let access = record.observed.flatMap { $0.notObserved?.contains("access") == true ? nil : $0.access.sorted() }
            return Comparison.Cell(run: label, environment: record.environment, verdict: record.verdict,
                                   access: access, renewals: record.observed?.renewals, reason: record.reason, divergence: divergence)
        }
    }

    enum Judgement {
        case same
        case blockedAfterDifference
        case differs(Classification, String, [KnownDivergence], [Comparison.Cell])
    }

    static func judge(_ input: [StepCell], afterDifference: Bool) -> Judgement {
        let verdicts = Set(input.map(\.verdict))
        if verdicts == [.pass] || verdicts == [.skipped] { return .same }
        let nonPassing = input.filter { $0.verdict != .pass }
        if afterDifference && nonPassing.allSatisfy({ $0.verdict == .blocked }) { return .blockedAfterDifference }

        let passing = input.filter { $0.verdict == .pass }.map(\.record)
        let cells = input.map { cell in
            var cell = cell
            cell.divergence = KnownDivergence.explain(cell.record, role: cell.role, caseRecords: cell.caseRecords, passing: passing)
            return cell
        }
        var divergences: [KnownDivergence] = []
        for divergence in cells.compactMap(\.divergence) where !divergences.contains(divergence) { divergences.append(divergence) }
        let (classification, explanation) = classify(cells)
        return .differs(classification, explanation, divergences, cells.map(\.cell))
    }

    static func classify(_ cells: [StepCell]) -> (Classification, String) {
        let referenceProblems = cells.filter {
            $0.role == .reference && ($0.verdict == .fail || $0.verdict == .error) && $0.divergence == nil
        }
        if !referenceProblems.isEmpty {
            return (.expectationContradictsStoreKit,
                    "\(outcome(referenceProblems)) in local, the reference: the expectation contradicts documented StoreKit behaviour")
        }
        let unexplained = cells.filter { $0.verdict != .pass && $0.divergence == nil }
        if unexplained.isEmpty {
            let explained = cells.filter { $0.divergence != nil }
            let names = explained.map { "\($0.label) (\($0.divergence?.rawValue ?? ""))" }
            return (.knownEnvironmentDivergence, "every run that did not pass is explained by a documented limit: " + list(names))
        }
        let serverFailures = unexplained.filter { $0.verdict == .fail && $0.role == .server }
        if !serverFailures.isEmpty {
            let references = cells.filter { $0.role == .reference && $0.judgedPass }.map(\.label)
            let others = unexplained.filter { $0.role != .server }
            let fails = "fails in " + list(serverFailures.map(\.label))
            guard !references.isEmpty else {
                return (.inconclusive, "\(fails), and no local run passes the step to compare the backend with")
            }
            if others.isEmpty {
                // The server run's app is the reference app and its store the embedded one: only the backend differs.
                return (.serverLogic, "passes in \(list(references)), \(fails): the backend grants access differently from what the "
                            + "App Store's notifications say")
            }
            let (classification, explanation) = classify(cells.filter { $0.role != .server })
            return (classification, explanation + "; it \(fails) as well (server logic)")
        }
        let failures = unexplained.filter { $0.verdict == .fail }
        let failingLayer = failures.compactMap(\.role.layer).min()
        // A run that errored, was blocked or skipped at or before the first failing environment leaves that
        // environment's part unknown.
        if let odd = unexplained.first(where: { $0.verdict != .fail && ($0.role.layer ?? Int.max) <= (failingLayer ?? Int.max) }) {
            switch odd.verdict {
            case .error:
                return (.inconclusive, "errors in \(odd.label): the environment could not perform or observe the step")
            case .blocked:
                return (.inconclusive, "blocked in \(odd.label): an earlier step of the case did not pass there")
            default:
                return (.inconclusive, "skipped in \(odd.label) for a reason that names no documented limit: "
                            + (odd.record.reason ?? "no reason given"))
            }
        }
        guard let failingLayer else {
            return (.inconclusive, "no run fails the step, and the runs that did not pass it name no documented limit")
        }
        let failing = failures.filter { $0.role.layer == failingLayer }.map(\.label)
        // A run that passed the step without observing any of it is no evidence that the step works there.
        let passing = cells.filter(\.judgedPass)
        func passes(_ roles: Set<EnvironmentRole>) -> [String] {
            passing.filter { roles.contains($0.role) }.map(\.label)
        }
        let fails = "fails in " + list(failing)
        switch failingLayer {
        case 1 where !passes([.reference]).isEmpty:
            return (.appLogic, "passes in \(list(passes([.reference]))), \(fails): the app handles the step differently from the reference app")
        case 2 where !passes([.app]).isEmpty:
            return (.productSetup, "passes in \(list(passes([.reference, .app]))), \(fails): check the product's setup in App Store Connect")
        case 2 where !passes([.reference]).isEmpty:
            // A Sandbox run is the team's own app: with only the reference app passing, its logic is as likely
            // a cause as the product's setup.
            return (.inconclusive, "passes in \(list(passes([.reference]))), \(fails), and no run of the app itself on the simulator "
                        + "(exec, app, xcode) passes it: app logic or product setup; run the app against the simulator to tell them apart")
        case 3 where !passes([.sandbox]).isEmpty:
            return (.distributedBuild, "passes in \(list(passes([.sandbox]))), \(fails): check what differs in the distributed build")
        default:
            return (.inconclusive, "\(fails), and no run in an earlier environment passes the step")
        }
    }

    /// `fails`, `errors`, or `fails or errors`.
    static func outcome(_ cells: [StepCell]) -> String {
        let verdicts = Set(cells.map(\.verdict))
        if verdicts == [.fail] { return "fails" }
        if verdicts == [.error] { return "errors" }
        return "fails or errors"
    }

    /// `a`, `a and b`, `a, b and c`.
    static func list(_ items: [String]) -> String {
        guard items.count > 1, let last = items.last else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " and " + last
    }

    // MARK: Warnings

    static func warnings(_ runs: [Comparison.Run], matrixVersionsDiffer: Bool, unmatched: [Comparison.Unmatched]) -> [String] {
        var warnings: [String] = []
        if matrixVersionsDiffer {
            let digests = runs.map { "\($0.label) \($0.matrixSHA256.prefix(12))" }.joined(separator: ", ")
            warnings.append("the runs ran different matrix versions (matrix SHA-256 \(digests)); steps are joined by case id "
                + "and step index, which may not name the same steps")
        }
        for run in runs {
            guard let selection = run.selection else { continue }
            warnings.append("run \(run.label) selected \(run.selectedCases ?? 0) case\(run.selectedCases == 1 ? "" : "s") (\(selection)); "
                + "the cases it did not select are compared among the other runs")
        }
        for run in runs where run.status != "complete" {
            warnings.append("run \(run.label) did not complete (status \(run.status)); steps it did not reach are missing from the comparison")
        }
        let cases = unmatched.filter { $0.step == nil }
        if !cases.isEmpty {
            warnings.append("\(count(cases.count, "case")) not in every run: " + described(cases))
        }
        let steps = unmatched.filter { $0.step != nil }
        if !steps.isEmpty {
            warnings.append("\(count(steps.count, "step")) not in every run that has the case: " + described(steps))
        }
        return warnings
    }

    /// `"a" (missing from sandbox), "b" step 3 (missing from local)`, at most five, then `and N more`.
    static func described(_ items: [Comparison.Unmatched]) -> String {
        let shown = items.prefix(5).map { item in
            "\"\(item.case)\"" + (item.step.map { " step \($0)" } ?? "") + " (missing from \(list(item.missingFrom)))"
        }
        let more = items.count > 5 ? ", and \(items.count - 5) more" : ""
        return shown.joined(separator: ", ") + more
    }

    /// `1 case is`, `3 cases are`.
    static func count(_ number: Int, _ noun: String) -> String {
        number == 1 ? "1 \(noun) is" : "\(number) \(noun)s are"
    }
}

/// One run's records indexed by case and step; when a step has several records (a resumed run), the one with
/// the highest `seq` counts. A record without a `clock` takes the run's.
struct IndexedRun {
    /// Case ids in the order their first record appears.
    var caseOrder: [String] = []
    /// Each case's records in step order, one per step.
    var byCase: [String: [EvidenceRecord]] = [:]
    /// Records read.
    var count: Int

    init(_ run: ComparedRun) {
        count = run.records.count
        var latest: [String: [Int: EvidenceRecord]] = [:]
        for var record in run.records.sorted(by: { $0.seq < $1.seq }) {
            if record.clock == nil { record.clock = run.clock }
            if latest[record.case] == nil { caseOrder.append(record.case) }
            latest[record.case, default: [:]][record.step] = record
        }
        for (id, steps) in latest {
            byCase[id] = steps.values.sorted { $0.step < $1.step }
        }
    }

    func record(_ caseID: String, _ step: Int) -> EvidenceRecord? {
        byCase[caseID]?.first { $0.step == step }
    }
}
