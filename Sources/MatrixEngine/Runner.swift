import Foundation
import MatrixJSON
import MatrixModel
import Threading

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
        let all = cases ?? Array(matrix.cases.indices)
        var summary = RunSummary()
        for caseIndex in all {
            for record in prior[matrix.cases[caseIndex].id] ?? [] {
                summary.steps[record.verdict, default: 0] += 1
                let steps = matrix.cases[caseIndex].steps
                if record.verdict == .pass, steps.indices.contains(record.step), steps[record.step].expect == nil {
                    summary.passesWithoutExpectation += 1
                }
                if record.passedWithNothingObserved { summary.passesWithNothingObserved += 1 }
            }
        }
        // Writes prepared records (a step's, or a batch of a case's), numbered already, and counts them.
        func emit(_ prepared: PreparedEvidence) async throws {
            try await sink.append(prepared)
            for record in prepared.records {
                summary.steps[record.verdict, default: 0] += 1
                if record.verdict == .pass, record.expected == nil { summary.passesWithoutExpectation += 1 }
                if record.passedWithNothingObserved { summary.passesWithNothingObserved += 1 }
                events(.stepFinished(record))
            }
        }
        func finish(_ caseIndex: Int, _ records: [RecordedStep], complete: Bool) {
            guard complete else {
                if !records.isEmpty { summary.unfinishedCase = matrix.cases[caseIndex].id }
                return
            }
            let result = caseResult(matrix.cases[caseIndex], records)
            summary.cases[result.verdict, default: 0] += 1
            summary.caseResults.append(result)
            events(.caseFinished(result))
        }
        // Cases the evidence holds whole (a resumed run) are counted first, so that a run stopped again at once
        // still counts them; only the others run.
        let isWhole = { (caseIndex: Int) in (prior[self.matrix.cases[caseIndex].id]?.count ?? 0) >= self.matrix.cases[caseIndex].steps.count }
        for caseIndex in all where isWhole(caseIndex) {
            finish(caseIndex, prior[matrix.cases[caseIndex].id] ?? [], complete: true)
        }
        let order = all.filter { !isWhole($0) }
        // The run stopped before the case at `caseIndex` ran (again): a case a resumed run had begun stays unfinished.
        func stoppedBefore(_ caseIndex: Int) {
            summary.interrupted = true
            let id = matrix.cases[caseIndex].id
            if summary.unfinishedCase == nil, !(prior[id]?.isEmpty ?? true) { summary.unfinishedCase = id }
        }

        if jobs == 1 {
            // On a thread of the run's own when the adapter wants it and the platform has task executors (see
            // ``CaseThread``); its tasks prefer it too.
            return try await PreferredExecutor.caseThread(if: adapter.runsOnCaseThread).run {
                var seq = firstSeq
                for caseIndex in order {
                    if Task.isCancelled {
                        stoppedBefore(caseIndex)
                        break
                    }
                    var written = prior[matrix.cases[caseIndex].id] ?? []
                    let complete = try await runCase(caseIndex, prior: written) { record in
                        var record = record
                        seq += 1
                        record.seq = seq
                        try await emit(sink.prepare([record]))
                        written.append(RecordedStep(record))
                    }
                    if !complete { summary.interrupted = true }
                    finish(caseIndex, written, complete: complete)
                    if !complete { break }
                }
                return summary
            }
        }

        // Several jobs: `jobs` workers each take the next case as soon as they are free, number and prepare its
        // records, and hand them to a ``CaseHandoff``; this task writes them from there in matrix order.
        // Workers never wait for the writer to start a case for them; they wait only when `window` cases are
        // taken and not yet written, which bounds the memory of cases waiting to be written. A long case hands
        // its records over in batches (every `batchSize` records, or every `batchInterval`) and lets the writer
        // run, so that the case being written streams to the evidence as with one job. A case that runs to its end records each step
        // not recorded yet, so the sequence numbers of every case are known before it runs; a case that does not
        // end is the last one written.
        var seqs: [Int] = []
        var nextSeq = firstSeq + 1
        for caseIndex in order {
            seqs.append(nextSeq)
            let steps = matrix.cases[caseIndex].steps.count
            nextSeq += steps - min(prior[matrix.cases[caseIndex].id]?.count ?? 0, steps)
        }
        let firstSeqs = seqs
        let batchSize = 64
        let batchInterval = Duration.milliseconds(100)
        let handoff = CaseHandoff(count: order.count, window: jobs * 4)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<min(jobs, order.count) {
                group.addTask {
                    let clock = ContinuousClock()
                    while let position = await handoff.take() {
                        let caseIndex = order[position]
                        var records: [EvidenceRecord] = []
                        var numbered = 0
                        var handedOver = clock.now
                        let finished: Result<Bool, any Error>
                        do {
                            finished = .success(try await self.runCase(caseIndex, prior: prior[self.matrix.cases[caseIndex].id] ?? []) {
                                var record = $0
                                record.seq = firstSeqs[position] + numbered
                                numbered += 1
                                records.append(record)
                                if records.count >= batchSize || clock.now - handedOver >= batchInterval {
                                    await handoff.deliver(position, sink.prepare(records), ending: nil)
                                    records = []
                                    handedOver = clock.now
                                    // Cases run without suspending, and the shared pool has a thread per core: without
                                    // a yield, jobs in long cases would keep the writer (and a signal's handling) from
                                    // running until a case ends.
                                    await Task.yield()
                                }
                            })
                        } catch {
                            finished = .failure(error)
                        }
                        await handoff.deliver(position, sink.prepare(records), ending: finished)
                    }
                }
            }
            do {
                var written = 0
                var recorded: [RecordedStep] = []
                while let (batches, ending) = await handoff.nextToWrite() {
                    let caseIndex = order[written]
                    for prepared in batches {
                        try await emit(prepared)
                        recorded += prepared.records.map(RecordedStep.init)
                    }
                    guard let ending else { continue }
                    let isComplete = try ending.get()
                    finish(caseIndex, (prior[matrix.cases[caseIndex].id] ?? []) + recorded, complete: isComplete)
                    recorded = []
                    written += 1
                    if !isComplete {
                        // Later cases are not written: the evidence stays in matrix order, and a resumed run
                        // performs them again.
                        summary.interrupted = true
                        break
                    }
                    handoff.wrote()
                }
                if written < order.count { stoppedBefore(order[written]) }
            } catch {
                handoff.stop()
                group.cancelAll()
                throw error
            }
            handoff.stop()
            group.cancelAll()
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
        // The documented limit that skipped a step, which the rest of the case is skipped for too.
        var skippedFor: String?
        // A resumed case keeps what its recorded steps decided.
        if let stop = prior.first(where: { $0.verdict == .fail || $0.verdict == .error }) {
            blockedBy = "step \(stop.step) (\(stop.action.rawValue)) \(stop.verdict == .fail ? "failed" : "errored")"
        } else if let stop = prior.first(where: { $0.verdict == .skipped }) {
            skippedBy = "step \(stop.step) (\(stop.action.rawValue)) was skipped: \(stop.reason ?? "not supported")"
            skippedFor = stop.environmentLimit
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
            var limit: String?
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
                limit = skippedFor
            } else if let session {
                do {
                    switch try await session.perform(step, index: index) {
                    case .observed(let observation, let wallTime):
                        observed = observation
                        modelled = wallTime
                        let diffs = Judge.differences(step, observation, in: matrix, clock: clock)
                        verdict = diffs.isEmpty ? .pass : .fail
                        reason = diffs.isEmpty ? nil : diffs.map(\.sentence).joined(separator: "; ")
                        if verdict == .fail { blockedBy = "step \(index) (\(step.action.rawValue)) failed" }
                    case .skipped(let why, let named):
                        verdict = .skipped
                        reason = why
                        limit = named?.rawValue
                        skippedBy = "step \(index) (\(step.action.rawValue)) was skipped: \(why)"
                        skippedFor = limit
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
                modelledWallTimeMs: modelled, clock: clock, appFault: context.appFault, environmentLimit: limit))
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
                          firstProblem: problem.map { "step \($0.step) (\($0.action.rawValue)): \($0.reason ?? $0.verdict.rawValue)" },
                          firstProblemStep: problem?.step)
    }
}
