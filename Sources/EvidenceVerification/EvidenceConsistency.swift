import EvidenceArchive
import EvidenceStore
import Foundation
import MatrixEngine
import MatrixModel

/// Checks that a run's evidence agrees with itself, with its `run.json` and with its matrix, record by record
/// as it is read: `seq` numbers run 1, 2, 3… without gaps or repeats; each record names run.json's run,
/// environment, build, device, OS and app fault; a case's records come together, steps 0,
/// 1, 2… in order, every step after a failed or errored one `blocked` and every step after a skipped one
/// `skipped`, as the runner records them; with the run's matrix (when it can be found unchanged) each
/// record's case, kind, step, action, account, expectation and clock are the matrix's, each `pass` or `fail` is
/// the verdict its expected and observed values give, a step of an embedded environment (`local`, `app`,
/// `server`) is skipped only for the one limit it has (``Step/needsBillingRetry`` on a clock without billing
/// retry), and a complete run holds every step of its cases; the counts of an ended run's `run.json`
/// (complete or interrupted) are the evidence's counts; and what each record claims agrees with its own signed
/// items (``SignedClaims``).
///
/// Digests show that files are unchanged since `run.json` was written; these checks catch evidence that was
/// edited and re-hashed by hand, or written by a tool that does not keep the format's rules. Verdicts that
/// need the environment to judge (blocked, error, and skipped outside the embedded environments) are not
/// re-judged.
struct EvidenceConsistency {
    /// At most this many problems are described; the rest are counted.
    static let describedProblems = 20

    private let matrix: Matrix?
    /// The matrix's cases by id.
    private let cases: [String: MatrixCase]
    /// The clock of the run, which a case without a clock of its own ran on.
    private let runClock: String?
    /// Whether the run's environment is an embedded one, whose only skip is billing retry on a clock without it.
    private let skipsOnlyBillingRetry: Bool
    /// What an embedded run may record as not observed (`notObserved`): prices the app does not report, the
    /// notifications of a store that sends none, and for `server` the balances a backend does not keep; `nil`
    /// for other environments, which name what they cannot observe themselves.
    private let unobservable: Set<String>?
    /// Whether every observation must carry the backend's exchange (`server`): a server run records one at each
    /// step, so a local run relabelled `server` does not pass for a test of the team's backend.
    private let requiresServerExchange: Bool
    private var lastSeq = 0
    /// The case and step of the previous record, and whether its case has failed or errored, or skipped a
    /// step, so far.
    private var previous: (case: String, step: Int, stopped: Bool, skipped: Bool)?
    private var finishedCases: Set<String> = []
    private var stepsPerCase: [String: Int] = [:]
    private var stepVerdicts: [Verdict] = []
    private var caseVerdicts: [String: Verdict] = [:]
    private var caseOrder: [String] = []
    private(set) var problems: [String] = []
    private var hiddenProblems = 0
    /// What each record claims against its own signed items.
    private var claims: SignedClaims

    /// What every record repeats of the run: its id, environment, build, device, OS and app fault.
    private let run: RunFields

    private struct RunFields: Equatable {
        var run: String
        var environment: String
        var build: String
        var device: String
        var os: String
        var appFault: String?
    }

    /// - Parameters:
    ///   - matrix: the run's matrix; `nil` when it cannot be used, and records are then checked against each
    ///     other and run.json only.
    ///   - manifest: the run's run.json, whose run id, environment, build, device, OS and app fault every record
    ///     repeats.
    init(matrix: Matrix?, manifest: RunManifest) {
        self.matrix = matrix
        run = RunFields(run: manifest.runId, environment: manifest.environment, build: manifest.build, device: manifest.device,
                        os: manifest.os, appFault: manifest.appFault)
        // A local run signs everything it reports itself; other environments report what they were given. The
        // name is read as `--env` reads it (any case): "Local" is the embedded environment too.
        let kind = EnvironmentKind(manifest.environment)
        let embedded = [EnvironmentKind.local, .app, .server].contains(kind)
        claims = SignedClaims(runSigns: kind == .local)
        cases = Dictionary((matrix?.cases ?? []).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        runClock = manifest.clock
        // A driver may run the team's app (`app`) or backend (`server`) and skip what it cannot do; no driver runs
        // `local` (drivers may not take its name), and a driver is a command.
        skipsOnlyBillingRetry = kind == .local || (embedded && manifest.driver == nil)
        requiresServerExchange = kind == .server && manifest.driver == nil
        unobservable = !skipsOnlyBillingRetry ? nil : kind == .server ? ["displayPrice", "notifications", "balance"] : ["displayPrice", "notifications"]
        if let driver = manifest.driver {
            if kind == .local {
                problems.append("\(RunDirectory.manifestFileName) names a driver command, but no driver runs the local environment")
            } else if kind == .server {
                // What sets a server run apart is the exchange with a backend the runner started, which a driver
                // can only invent; drivers may not take the name.
                problems.append("\(RunDirectory.manifestFileName) names a driver command, but no driver runs the server environment "
                                + "(a server run's exchange with the backend is the runner's own)")
            } else if driver.first?.isEmpty ?? true {
                problems.append("\(RunDirectory.manifestFileName) names an empty driver command")
            }
        }
        if !EnvironmentKind.isValidName(manifest.environment) {
            // Shown so that a name that only looks right (a trailing no-break space) is seen for what it is.
            let shown = manifest.environment.unicodeScalars.map { $0.isASCII ? String($0) : "\\u{\(String($0.value, radix: 16, uppercase: true))}" }.joined()
            problems.append("\(RunDirectory.manifestFileName)'s environment \"\(shown)\" is not an environment name (1 to 64 "
                            + "ASCII letters, digits, '.', '_' or '-')")
        }
        if let matrix { checkCoverage(manifest, against: matrix) }
    }

    /// A run's selection (`selection`, `selectedCases`) and shard (`shard`, `shardCases`) are what its options
    /// select from the matrix, as `matrix run` computes them: a case cannot be left out of a complete run by
    /// naming it unselected.
    private mutating func checkCoverage(_ manifest: RunManifest, against matrix: Matrix) {
        let name = RunDirectory.manifestFileName
        var selected = Array(matrix.cases.indices)
        if let selection = manifest.selection {
            do {
                selected = try selection.resolve(in: matrix)
            } catch {
                problems.append("\(name)'s selection (\(selection.summary)) selects nothing from the run's matrix: \(error)")
            }
            if manifest.selectedCases != selected.map({ matrix.cases[$0].id }) {
                problems.append("\(name)'s selectedCases are not the cases its selection (\(selection.summary)) selects from the run's matrix")
            }
        } else if manifest.selectedCases != nil {
            problems.append("\(name) lists selectedCases but no selection that selects them")
        }
        if let text = manifest.shard {
            guard let shard = Shard(text) else {
                problems.append("\(name)'s shard \"\(text)\" is not K/N")
                return
            }
            if manifest.shardCases != shard.caseIndices(of: matrix, among: selected).map({ matrix.cases[$0].id }) {
                problems.append("\(name)'s shardCases are not the cases of shard \(shard) of the run's matrix")
            }
        } else if manifest.shardCases != nil {
            problems.append("\(name) lists shardCases but no shard")
        }
    }

    /// Whether records are checked against the matrix and verdicts re-judged.
    var rejudges: Bool { matrix != nil }

    mutating func add(_ record: EvidenceRecord) {
        let place = "seq \(record.seq) (\(record.case) step \(record.step))"
        // Hand-edited evidence may hold any number, Int.min and Int.max included.
        if lastSeq == Int.max || record.seq != lastSeq + 1 {
            if record.seq <= lastSeq {
                problem("\(place): seq \(record.seq) after seq \(lastSeq); records are repeated or out of order")
            } else {
                let (gap, overflow) = record.seq.subtractingReportingOverflow(lastSeq)
                problem("\(place): seq \(record.seq) after seq \(lastSeq); " + (overflow ? "records are missing" : "\(gap - 1) record(s) are missing"))
            }
        }
        lastSeq = record.seq
        let recorded = RunFields(run: record.run, environment: record.environment, build: record.build, device: record.device,
                                 os: record.os, appFault: record.appFault)
        if recorded != run {
            problem("\(place): the record's run, environment, build, device, OS or app fault is not run.json's")
        }
        stepsPerCase[record.case, default: 0] += 1
        if requiresServerExchange, let observed = record.observed, observed.server == nil {
            problem("\(place): the record holds no exchange with the backend, which a server run records at every step")
        }
        if let unobservable, let named = record.observed?.notObserved, !Set(named).isSubset(of: unobservable) {
            let others = named.filter { !unobservable.contains($0) }
            problem("\(place): the record names \(others.joined(separator: ", ")) as not observed, which \(run.environment) always observes")
        }
        let afterSkip = previous.map { $0.case == record.case && $0.skipped } ?? false
        checkOrder(record, place: place)
        if let matrix {
            check(record, place: place, against: matrix, afterSkip: afterSkip)
        }
        stepVerdicts.append(record.verdict)
        if let worst = caseVerdicts[record.case] {
            caseVerdicts[record.case] = Verdict.summarise([worst, record.verdict])
        } else {
            caseVerdicts[record.case] = record.verdict
            caseOrder.append(record.case)
        }
    }

    /// Compares what `record` claims with its signed items, once they are verified (``SignedClaims``).
    mutating func add(_ record: EvidenceRecord, signed items: [SignedClaims.Item]) {
        var found: [String] = []
        claims.check(record, items: items) { found.append($0) }
        for text in found { problem(text) }
    }

    /// A case's records are written together, steps 0, 1, 2… in order; `blocked` follows, and only follows, a
    /// step of the same case that failed or errored; once a step is skipped, so is the rest of its case.
    private mutating func checkOrder(_ record: EvidenceRecord, place: String) {
        var stopped = false
        var skipped = false
        if let previous, previous.case == record.case {
            // Hand-edited evidence may hold any number, Int.max included.
            if previous.step == Int.max || record.step != previous.step + 1 {
                problem("\(place): step \(record.step) follows step \(previous.step) of its case; a case's steps are recorded in order")
            }
            stopped = previous.stopped
            skipped = previous.skipped
            if stopped, record.verdict != .blocked {
                problem("\(place): recorded \(record.verdict.rawValue) after a failed or errored step of its case, which blocks the rest of the case")
            } else if skipped, !stopped, record.verdict != .skipped {
                problem("\(place): recorded \(record.verdict.rawValue) after a skipped step of its case, which skips the rest of the case")
            }
        } else {
            if let previous { finishedCases.insert(previous.case) }
            if finishedCases.contains(record.case) {
                problem("\(place): case \(record.case) is recorded again after other cases; a case's records are written together")
            }
            if record.step != 0 {
                problem("\(place): case \(record.case) starts at step \(record.step), not 0")
            }
        }
        if record.verdict == .blocked, !stopped {
            problem("\(place): recorded blocked, but no earlier step of the case failed or errored")
        }
        previous = (record.case, record.step, stopped || record.verdict == .fail || record.verdict == .error,
                    skipped || record.verdict == .skipped)
    }

    /// - Parameter afterSkip: whether an earlier step of the record's case was skipped.
    private mutating func check(_ record: EvidenceRecord, place: String, against matrix: Matrix, afterSkip: Bool) {
        guard let matrixCase = cases[record.case] else {
            problem("\(place): the run's matrix has no case \"\(record.case)\"")
            return
        }
        guard matrixCase.steps.indices.contains(record.step) else {
            problem("\(place): case \(record.case) has steps 0 to \(matrixCase.steps.count - 1), not \(record.step)")
            return
        }
        let step = matrixCase.steps[record.step]
        var action = step
        action.expect = nil
        if record.action != action || record.product != step.product {
            problem("\(place): the record's action is not the matrix's step (\(step.action.rawValue) \(step.product ?? ""))")
        }
        if record.account.alias != step.account ?? matrixCase.account {
            problem("\(place): the record's account is \(record.account.alias), the matrix's \(step.account ?? matrixCase.account)")
        }
        if record.expected != step.expect {
            problem("\(place): the record's expectation is not the matrix's")
        }
        if record.kind != matrixCase.kind {
            problem("\(place): the record's kind is \(record.kind), the matrix's \(matrixCase.kind)")
        }
        // The clock the runner gave the case: its store settings', else the run's.
        let clock = matrix.storeSettings(for: matrixCase).clock ?? runClock
        if record.clock != clock {
            problem("\(place): the record's clock is \(record.clock ?? "none"), the run's \(clock ?? "none")")
        }
        if record.verdict == .skipped, skipsOnlyBillingRetry {
            checkSkip(record, place: place, firstOfCase: !afterSkip)
        }
        guard record.verdict == .pass || record.verdict == .fail else { return }
        guard let observed = record.observed else {
            problem("\(place): recorded \(record.verdict.rawValue) without an observation")
            return
        }
        let differences = Judge.differences(step, observed, in: matrix, clock: record.clock)
        if differences.isEmpty, record.verdict == .fail {
            problem("\(place): recorded fail, but what was observed is what was expected")
        } else if !differences.isEmpty, record.verdict == .pass {
            problem("\(place): recorded pass, but " + differences.map(\.sentence).joined(separator: "; "))
        }
    }

    /// An embedded environment skips a step for one reason only: the step needs billing retry and the case's
    /// clock has none (TestFlight's); the rest of the case is then skipped for the same limit.
    private mutating func checkSkip(_ record: EvidenceRecord, place: String, firstOfCase: Bool) {
        let limit = GuidedLimit.billingRetry.rawValue
        if record.environmentLimit != limit {
            problem("\(place): recorded skipped, but \(run.environment) skips a step only for the \(limit) limit")
        }
        guard firstOfCase else { return }
        let step = cases[record.case]?.steps[record.step]
        if step?.needsBillingRetry != true || RenewalSchedule.environment(ofClock: record.clock)?.billingRetryUnsupportedReason == nil {
            problem("\(place): recorded skipped, but \(run.environment) can perform this step on clock \(record.clock ?? "none")")
        }
    }

    /// Compares the counts of a run's final manifest (complete or interrupted) with the evidence's, and checks
    /// that a complete run holds every step of its cases; call after the last record.
    mutating func finish(manifest: RunManifest) {
        if hiddenProblems > 0 { problems.append("… and \(hiddenProblems) more inconsistencies") }
        // A run that has not ended has the counts of its start.
        guard !manifest.hasNotEnded else { return }
        if manifest.status == .complete, let matrix {
            // A complete run records every step of each of its cases (a shard's cases, the selected ones, or all of them).
            let ids = manifest.caseIDs(of: matrix)
            let short = ids.filter { (stepsPerCase[$0] ?? 0) < (cases[$0]?.steps.count ?? 0) }
            if !short.isEmpty {
                problems.append("\(RunDirectory.manifestFileName) says the run is complete, but \(short.count) case(s) lack steps, e.g. "
                                + short.prefix(3).joined(separator: ", "))
            }
        }
        // An interrupted run counts the steps of the case it stopped in, not the case.
        let unfinished = manifest.status == .interrupted ? manifest.unfinished : []
        let counts = RunCounts(cases: VerdictCounts(caseOrder.filter { !unfinished.contains($0) }.compactMap { caseVerdicts[$0] }),
                               steps: VerdictCounts(stepVerdicts))
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
