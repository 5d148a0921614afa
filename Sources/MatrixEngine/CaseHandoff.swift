import Threading

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
    private let state = Locked(State())

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
