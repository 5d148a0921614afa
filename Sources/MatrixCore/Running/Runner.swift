import Foundation
import Synchronization

/// Receives evidence records in matrix order and keeps them.
///
/// A runner hands each batch of records (a step's, or a batch of a case's) first to ``prepare(_:)``, on the job
/// that produced it, and then, in matrix order, to `append(_ prepared:)`: work that does not depend on the
/// order (encoding the records) runs in parallel, and only the writing is serial.
public protocol EvidenceSink: Sendable {
    /// Appends one record; when this returns it must survive a crash of the process (it may reach the disk
    /// shortly after; see the sink's own documentation).
    ///
    /// - Throws: when the record cannot be written; the run stops (exit 74) with what was written kept.
    func append(_ record: EvidenceRecord) async throws

    /// Readies numbered records for writing, wherever they were produced and in any order.
    func prepare(_ records: [EvidenceRecord]) -> PreparedEvidence

    /// Appends prepared records, in order, as `append(_ record:)` appends each.
    ///
    /// - Throws: as `append(_ record:)`; records before the one that failed may have been kept.
    func append(_ prepared: PreparedEvidence) async throws
}

/// Records readied by an ``EvidenceSink`` for writing.
public struct PreparedEvidence: Sendable {
    /// The records, as the sink keeps them for progress and reports: a sink that has encoded them may leave out
    /// what only the encoding needs (signed data).
    public var records: [EvidenceRecord]
    /// The sink's encoding of the records, if it made one; only that sink's `prepare(_:)` sets it.
    public var encoded: [UInt8]?

    public init(records: [EvidenceRecord], encoded: [UInt8]? = nil) {
        self.records = records
        self.encoded = encoded
    }
}

extension EvidenceSink {
    /// The records as they are, for a sink that does nothing ahead of writing.
    public func prepare(_ records: [EvidenceRecord]) -> PreparedEvidence {
        PreparedEvidence(records: records)
    }

    /// Appends the records one at a time.
    public func append(_ prepared: PreparedEvidence) async throws {
        for record in prepared.records { try await append(record) }
    }
}

/// What a run reports while it goes, for progress output. Events arrive in matrix order.
public enum RunEvent: Sendable {
    /// A step's record once written, as the sink keeps it (``PreparedEvidence/records``).
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
    /// The case that started and did not end when the run stopped, if one did: its records are the first of its
    /// steps, and it is written last.
    public var unfinishedCase: String?

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
        let all = cases ?? Array(matrix.cases.indices)
        var summary = RunSummary()
        for caseIndex in all {
            for record in prior[matrix.cases[caseIndex].id] ?? [] {
                summary.steps[record.verdict, default: 0] += 1
                let steps = matrix.cases[caseIndex].steps
                if record.verdict == .pass, steps.indices.contains(record.step), steps[record.step].expect == nil {
                    summary.passesWithoutExpectation += 1
                }
            }
        }
        // Writes prepared records (a step's, or a batch of a case's), numbered already, and counts them.
        func emit(_ prepared: PreparedEvidence) async throws {
            try await sink.append(prepared)
            for record in prepared.records {
                summary.steps[record.verdict, default: 0] += 1
                if record.verdict == .pass, record.expected == nil { summary.passesWithoutExpectation += 1 }
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

/// Cases handed from the writer to the workers of a run with several jobs, and their records handed back.
///
/// Workers ``take()`` case positions in order, at most `window` ahead of the last one written, and
/// ``deliver(_:_:ending:)`` their records in batches, in any order of cases; the writer receives each case's
/// batches in order from ``nextToWrite()``, as they come for the case being written. The records waiting to
/// be written are bounded by `heldBytes` (their encoded size): past it, a worker delivering for a case not yet
/// being written waits for its case's turn, and the worker of the case being written waits for the writer to
/// take its batches, so long cases side by side, or a writer slower than the jobs, do not pile records up in
/// memory. After ``stop()``, or when the task is cancelled, no further case is taken; cases already taken are
/// still handed back, so the writer sees each of them end.
///
/// A lock, not an actor: workers and the writer call in several times per case, and an actor busy with one
/// of them would make the other give up its thread and wait to be woken; here a call only waits when it must.
final class CaseHandoff: Sendable {
    private let count: Int
    private let window: Int
    private let heldBytesLimit: Int
    private let state = Mutex(State())

    private struct State {
        /// The next position to hand out, and the next one to write.
        var next = 0
        var written = 0
        var stopped = false
        /// Batches not yet written, by position, and how the case ended once it has.
        var delivered: [Int: (batches: [PreparedEvidence], ending: Result<Bool, any Error>?)] = [:]
        /// The encoded size of the batches in `delivered`.
        var heldBytes = 0
        var waitingWorkers: [CheckedContinuation<Void, Never>] = []
        /// Workers waiting in ``deliver(_:_:ending:)`` for room.
        var waitingDeliveries: [CheckedContinuation<Void, Never>] = []
        var waitingWriter: CheckedContinuation<Void, Never>?

        /// The continuations of everyone who may go on now that cases were written or the run stops; each
        /// checks again whether it must wait.
        mutating func takeWaiting(workers: Bool, deliveries: Bool, writer: Bool) -> [CheckedContinuation<Void, Never>] {
            var woken: [CheckedContinuation<Void, Never>] = []
            if workers { woken += waitingWorkers; waitingWorkers = [] }
            if deliveries { woken += waitingDeliveries; waitingDeliveries = [] }
            if writer, let waiting = waitingWriter { woken.append(waiting); waitingWriter = nil }
            return woken
        }
    }

    /// - Parameters:
    ///   - count: How many cases there are to hand out.
    ///   - window: How many cases may be taken and not yet written.
    ///   - heldBytes: How many bytes of records (``PreparedEvidence/encoded``, or 1 KiB a record without an
    ///     encoding) may wait to be written before workers wait (see the type).
    init(count: Int, window: Int, heldBytes: Int = 16 << 20) {
        self.count = count
        self.window = max(1, window)
        self.heldBytesLimit = heldBytes
    }

    /// Workers waiting in ``deliver(_:_:ending:)`` for room (for tests).
    var waitingDeliveryCount: Int { state.withLock { $0.waitingDeliveries.count } }

    /// Who waits for what: a worker for a case to take, a worker for room to deliver, the writer for records.
    private enum Waiter {
        case worker, delivery, writer
    }

    /// Suspends as `waiter` unless `ready` holds, checked under the lock (so a wake-up is never missed); the
    /// caller checks its condition again when this returns.
    private func park(as waiter: Waiter, unless ready: @Sendable (State) -> Bool) async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                if ready(state) { return true }
                switch waiter {
                case .worker: state.waitingWorkers.append(continuation)
                case .delivery: state.waitingDeliveries.append(continuation)
                case .writer: state.waitingWriter = continuation
                }
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// The position of the next case to run, or `nil` when there is none or the run is stopping.
    func take() async -> Int? {
        let (count, window) = (count, window)
        while true {
            let cancelled = Task.isCancelled
            let taken: (position: Int?, over: Bool) = state.withLock { state in
                if cancelled { state.stopped = true }
                if state.stopped || state.next >= count { return (nil, true) }
                guard state.next - state.written < window else { return (nil, false) }
                state.next += 1
                return (state.next - 1, false)
            }
            if let position = taken.position { return position }
            if taken.over {
                resume(state.withLock { $0.takeWaiting(workers: false, deliveries: false, writer: true) })
                return nil
            }
            // Woken once a case is written (room in the window) or the run stops.
            await park(as: .worker) { $0.stopped || $0.next >= count || $0.next - $0.written < window }
        }
    }

    /// The next records of the case at `position`; `ending`, with the last ones, is whether the case ran to its
    /// end, or the error that stopped it.
    func deliver(_ position: Int, _ batch: PreparedEvidence, ending: Result<Bool, any Error>?) async {
        let size = Self.size(batch)
        resume(state.withLock { state in
            var entry = state.delivered[position] ?? ([], nil)
            if !batch.records.isEmpty {
                entry.batches.append(batch)
                state.heldBytes += size
            }
            entry.ending = ending
            state.delivered[position] = entry
            return state.takeWaiting(workers: false, deliveries: false, writer: position == state.written)
        })
        let limit = heldBytesLimit
        while state.withLock({ Self.mustWait(position, $0, limit: limit) }) {
            await park(as: .delivery) { !Self.mustWait(position, $0, limit: limit) }
        }
    }

    /// Whether the worker of the case at `position` waits before running further: a case not yet being written
    /// waits for its turn once the records held pass the limit; the case being written waits only for the
    /// writer to take its own batches, never for other cases (which wait for it).
    private static func mustWait(_ position: Int, _ state: State, limit: Int) -> Bool {
        guard !state.stopped, state.heldBytes > limit else { return false }
        if position > state.written { return true }
        return position == state.written && !(state.delivered[position]?.batches.isEmpty ?? true)
    }

    private static func size(_ batch: PreparedEvidence) -> Int {
        batch.encoded?.count ?? batch.records.count * 1024
    }

    /// The batches of the case being written that arrived since the last call, and how it ended once it has;
    /// `nil` when every case taken is written and no further case will be taken.
    func nextToWrite() async -> (batches: [PreparedEvidence], ending: Result<Bool, any Error>?)? {
        let count = count
        while true {
            let found: (entry: (batches: [PreparedEvidence], ending: Result<Bool, any Error>?)?, over: Bool,
                        woken: [CheckedContinuation<Void, Never>]) = state.withLock { state in
                if Self.hasNews(state) {
                    let entry = state.delivered[state.written] ?? ([], nil)
                    state.delivered[state.written] = entry.ending == nil ? ([], nil) : nil
                    state.heldBytes -= entry.batches.reduce(0) { $0 + Self.size($1) }
                    return (entry, false, state.takeWaiting(workers: false, deliveries: true, writer: false))
                }
                return (nil, Self.allWritten(state, count: count), [])
            }
            resume(found.woken)
            if let entry = found.entry { return entry }
            if found.over { return nil }
            await park(as: .writer) { Self.hasNews($0) || Self.allWritten($0, count: count) }
        }
    }

    /// Whether the case being written has batches or its end waiting for the writer.
    private static func hasNews(_ state: State) -> Bool {
        guard let entry = state.delivered[state.written] else { return false }
        return !entry.batches.isEmpty || entry.ending != nil
    }

    /// Whether every case taken is written and no further case will be taken.
    private static func allWritten(_ state: State, count: Int) -> Bool {
        state.written >= state.next && (state.stopped || state.next >= count)
    }

    /// The case being written has ended and is written: a worker waiting for room may take another.
    func wrote() {
        resume(state.withLock { state in
            state.written += 1
            return state.takeWaiting(workers: true, deliveries: true, writer: false)
        })
    }

    /// Takes no further case, and wakes everyone waiting.
    func stop() {
        resume(state.withLock { state in
            state.stopped = true
            return state.takeWaiting(workers: true, deliveries: true, writer: true)
        })
    }

    private func resume(_ waiting: [CheckedContinuation<Void, Never>]) {
        for continuation in waiting { continuation.resume() }
    }
}
