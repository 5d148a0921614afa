import Foundation

/// Receives evidence records in matrix order and keeps them.
public protocol EvidenceSink: Sendable {
    /// Appends one record; when this returns it must survive a crash of the process (it may reach the disk
    /// shortly after; see the sink's own documentation).
    ///
    /// - Throws: when the record cannot be written; the run stops (exit 74) with what was written kept.
    func append(_ record: EvidenceRecord) async throws
}

/// What a run reports while it goes, for progress output. Events arrive in matrix order.
public enum RunEvent: Sendable {
    case stepFinished(EvidenceRecord)
    case caseFinished(CaseResult)
}

/// A case's outcome.
public struct CaseResult: Sendable, Hashable, Codable {
    public var id: String
    public var kind: String
    public var account: String
    public var verdict: Verdict
    /// Step verdict counts.
    public var steps: [Verdict: Int]
    /// The first step that did not pass, and why.
    public var firstProblem: String?
}

/// Counts of a run by verdict.
public struct RunSummary: Sendable, Hashable, Codable {
    public var cases: [Verdict: Int] = [:]
    public var steps: [Verdict: Int] = [:]
    public var caseResults: [CaseResult] = []
    /// Passing steps whose matrix step has no expectation: they passed because nothing contradicted them
    /// (observers agreed, the action succeeded), not because an expected value was seen.
    public var passesWithoutExpectation = 0
    /// True when the run stopped before every case ended (Ctrl-C, a signal).
    public var interrupted = false

    public init() {}

    /// Whether every recorded step passed or was skipped, and nothing was interrupted.
    public var allPassed: Bool {
        !interrupted && (steps[.fail] ?? 0) == 0 && (steps[.error] ?? 0) == 0 && (steps[.blocked] ?? 0) == 0
    }
}

/// The run's identity and metadata, copied into every record.
public struct RunContext: Sendable, Hashable, Codable {
    public var runID: String
    public var environment: String
    public var build: String
    public var device: String
    public var os: String
    /// Salted SHA-256 of each account's real identifier, by alias, in guided runs.
    public var accountHashes: [String: String]
    /// The known bug the reference app runs with, if any.
    public var appFault: String?

    public init(runID: String, environment: String, build: String, device: String, os: String, accountHashes: [String: String] = [:],
                appFault: String? = nil) {
        self.runID = runID
        self.environment = environment
        self.build = build
        self.device = device
        self.os = os
        self.accountHashes = accountHashes
        self.appFault = appFault
    }
}

/// Runs a matrix's cases through an environment adapter, judges every step, and hands records to a sink.
///
/// Cases run concurrently up to `jobs`; records reach the sink in matrix order whatever the timing, each
/// with its sequence number. With one job every record is written as its step ends.
public struct Runner: Sendable {
    public var matrix: Matrix
    public var adapter: any EnvironmentAdapter
    public var context: RunContext
    public var wallClock: any WallClock
    public var jobs: Int

    public init(matrix: Matrix, adapter: any EnvironmentAdapter, context: RunContext, wallClock: any WallClock = SystemWallClock(), jobs: Int = 1) {
        self.matrix = matrix
        self.adapter = adapter
        self.context = context
        self.wallClock = wallClock
        self.jobs = max(1, jobs)
    }

    /// Runs `cases` (by default all of them), starting sequence numbers after `firstSeq`.
    ///
    /// - Parameters:
    ///   - cases: indices into the matrix's cases, in the order to record them.
    ///   - sink: where records go.
    ///   - firstSeq: the sequence number of the last record already written (for resumed runs).
    ///   - events: progress callback.
    /// - Throws: whatever the sink throws; the run stops at once.
    /// - Parameter prior: the steps already in the evidence, by case id, in step order (a resumed run). They
    ///   are not recorded again: a case continues at its first unrecorded step, after replaying the recorded
    ///   ones when the environment ``EnvironmentAdapter/replaysOnResume``.
    public func run(cases: [Int]? = nil, into sink: any EvidenceSink, firstSeq: Int = 0,
                    prior: [String: [RecordedStep]] = [:],
                    events: @escaping @Sendable (RunEvent) -> Void = { _ in }) async throws -> RunSummary {
        let order = cases ?? Array(matrix.cases.indices)
        var summary = RunSummary()
        for caseIndex in order {
            for record in prior[matrix.cases[caseIndex].id] ?? [] {
                summary.steps[record.verdict, default: 0] += 1
                let steps = matrix.cases[caseIndex].steps
                if record.verdict == .pass, steps.indices.contains(record.step), steps[record.step].expect == nil {
                    summary.passesWithoutExpectation += 1
                }
            }
        }
        var seq = firstSeq
        func emit(_ records: [EvidenceRecord], _ caseIndex: Int) async throws {
            for var record in records {
                seq += 1
                record.seq = seq
                try await sink.append(record)
                summary.steps[record.verdict, default: 0] += 1
                if record.verdict == .pass, record.expected == nil { summary.passesWithoutExpectation += 1 }
                events(.stepFinished(record))
            }
        }
        func finish(_ caseIndex: Int, _ records: [RecordedStep], complete: Bool) {
            guard complete else { return }
            let result = caseResult(matrix.cases[caseIndex], records)
            summary.cases[result.verdict, default: 0] += 1
            summary.caseResults.append(result)
            events(.caseFinished(result))
        }

        if jobs == 1 {
            for caseIndex in order {
                if Task.isCancelled { summary.interrupted = true; break }
                var written = prior[matrix.cases[caseIndex].id] ?? []
                let complete = try await runCase(caseIndex, prior: written) { record in
                    try await emit([record], caseIndex)
                    written.append(RecordedStep(record))
                }
                if !complete { summary.interrupted = true }
                finish(caseIndex, written, complete: complete)
                if !complete { break }
            }
            return summary
        }

        // Several jobs: up to `jobs` cases run at once. A finished case waits in `done` until every earlier case is
        // written, and the next case starts before it is written, so that writing does not hold the others back.
        // At most `window` cases are started and not yet written, which bounds the memory of waiting cases.
        let window = jobs * 4
        try await withThrowingTaskGroup(of: (Int, [EvidenceRecord], Bool).self) { group in
            var next = 0
            var running = 0
            var done: [Int: ([EvidenceRecord], Bool)] = [:]
            var written = 0
            var stopped = false
            func start() {
                let position = next
                let caseIndex = order[position]
                next += 1
                running += 1
                let previous = prior[matrix.cases[caseIndex].id] ?? []
                group.addTask {
                    var records: [EvidenceRecord] = []
                    let complete = try await self.runCase(caseIndex, prior: previous) { records.append($0) }
                    return (position, records, complete)
                }
            }
            func fill() {
                while !stopped, !Task.isCancelled, running < jobs, next < order.count, next - written < window { start() }
            }
            fill()
            while let (position, records, complete) = try await group.next() {
                running -= 1
                done[position] = (records, complete)
                fill()
                while !stopped, let (records, complete) = done[written] {
                    done[written] = nil
                    let caseIndex = order[written]
                    try await emit(records, caseIndex)
                    finish(caseIndex, (prior[matrix.cases[caseIndex].id] ?? []) + records.map(RecordedStep.init), complete: complete)
                    written += 1
                    if !complete {
                        // Later cases are not written: the evidence stays in matrix order, and a resumed run
                        // performs them again.
                        summary.interrupted = true
                        stopped = true
                        group.cancelAll()
                    }
                }
                fill()
            }
            if written < order.count { summary.interrupted = true }
        }
        return summary
    }

    /// Runs one case, handing each record to `record`; returns false if cancelled before the case ended.
    func runCase(_ caseIndex: Int, prior: [RecordedStep] = [], record: (EvidenceRecord) async throws -> Void) async throws -> Bool {
        let matrixCase = matrix.cases[caseIndex]
        let clock = matrix.storeSettings(for: matrixCase).clock ?? adapter.description.clock
        let resumeAt = min(prior.count, matrixCase.steps.count)
        if resumeAt == matrixCase.steps.count { return true }
        var blockedBy: String?
        var skippedBy: String?
        // A resumed case keeps what its recorded steps decided.
        if let stop = prior.first(where: { $0.verdict == .fail || $0.verdict == .error }) {
            blockedBy = "step \(stop.step) (\(stop.action.rawValue)) \(stop.verdict == .fail ? "failed" : "errored")"
        } else if let stop = prior.first(where: { $0.verdict == .skipped }) {
            skippedBy = "step \(stop.step) (\(stop.action.rawValue)) was skipped: \(stop.reason ?? "not supported")"
        }
        var session: (any CaseSession)?
        var startProblem: String?
        if blockedBy == nil && skippedBy == nil {
            do {
                session = try await adapter.startCase(matrixCase, of: matrix)
            } catch {
                startProblem = "the environment could not start the case: \(describe(error))"
            }
        }
        if let live = session, resumeAt > 0, adapter.replaysOnResume {
            // Rebuild the case's state by performing the recorded steps again, without recording them.
            for (index, step) in matrixCase.steps.prefix(resumeAt).enumerated() {
                do {
                    _ = try await live.perform(step, index: index)
                } catch is CancellationError {
                    await live.close()
                    return false
                } catch {
                    startProblem = "resuming: recorded step \(index) (\(step.action.rawValue)) could not be replayed: \(describe(error))"
                    break
                }
            }
        }
        if let startProblem {
            await session?.close()
            session = nil
            blockedBy = startProblem
        }
        for (index, step) in matrixCase.steps.enumerated() where index >= resumeAt {
            if Task.isCancelled {
                await session?.close()
                return false
            }
            let start = wallClock.now()
            var verdict = Verdict.error
            var reason: String?
            var observed: Observation?
            var modelled: Int64?
            if let blockedBy {
                if session == nil && index == resumeAt && startProblem != nil {
                    reason = blockedBy
                } else {
                    verdict = .blocked
                    reason = "blocked: \(blockedBy)"
                }
            } else if let skippedBy {
                // What follows a step the environment cannot perform would judge a different story.
                verdict = .skipped
                reason = skippedBy
            } else if let session {
                do {
                    switch try await session.perform(step, index: index) {
                    case .observed(let observation, let wallTime):
                        observed = observation
                        modelled = wallTime
                        let diffs = Judge.differences(step, observation, in: matrix)
                        verdict = diffs.isEmpty ? .pass : .fail
                        reason = diffs.isEmpty ? nil : diffs.map(\.sentence).joined(separator: "; ")
                        if verdict == .fail { blockedBy = "step \(index) (\(step.action.rawValue)) failed" }
                    case .skipped(let why):
                        verdict = .skipped
                        reason = why
                        skippedBy = "step \(index) (\(step.action.rawValue)) was skipped: \(why)"
                    }
                } catch is CancellationError {
                    await session.close()
                    return false
                } catch {
                    reason = describe(error)
                    blockedBy = "step \(index) (\(step.action.rawValue)) errored"
                }
            }
            let end = wallClock.now()
            var action = step
            action.expect = nil
            let alias = step.account ?? matrixCase.account
            try await record(EvidenceRecord(
                run: context.runID, seq: 0, environment: context.environment, build: context.build, device: context.device,
                os: context.os,
                account: AccountRef(alias: alias, state: matrix.account(alias)?.stateDescription ?? "unknown",
                                    hash: context.accountHashes[alias]),
                case: matrixCase.id, kind: matrixCase.kind, step: index, action: action, product: step.product,
                expected: step.expect, observed: observed, verdict: verdict, reason: reason,
                wallStart: Timestamp.iso8601(start), wallEnd: Timestamp.iso8601(end), storeTime: observed?.storeTime,
                modelledWallTimeMs: modelled, clock: clock, appFault: context.appFault))
        }
        await session?.close()
        return true
    }

    private func describe(_ error: any Error) -> String {
        if let adapterError = error as? AdapterError { return adapterError.message }
        return String(describing: error)
    }

    func caseResult(_ matrixCase: MatrixCase, _ records: [RecordedStep]) -> CaseResult {
        var counts: [Verdict: Int] = [:]
        for record in records { counts[record.verdict, default: 0] += 1 }
        let verdict = Verdict.summarise(records.map(\.verdict))
        let problem = records.first { $0.verdict != .pass && ($0.verdict != .skipped || verdict == .skipped) }
        return CaseResult(id: matrixCase.id, kind: matrixCase.kind, account: matrixCase.account,
                          verdict: verdict, steps: counts,
                          firstProblem: problem.map { "step \($0.step) (\($0.action.rawValue)): \($0.reason ?? $0.verdict.rawValue)" })
    }
}
