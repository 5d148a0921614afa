import Threading

/// One `for await … in Transaction.updates` loop of the app: what was delivered to it and not yet taken, and
/// whether it has finished with what it took.
///
/// An update is handled once the loop asks for the next one (its body ran to the end): that is what the runner
/// waits for (``StoreKitSession/settle(within:)``) before it observes the app, so no step sleeps or polls.
final class UpdatesListener: Sendable {
    typealias Element = VerificationResult<Transaction>

    private struct State {
        var queue: [Element] = []
        /// The loop waiting in `next()`.
        var waiting: CheckedContinuation<Element?, Never>?
        /// An update the loop took and has not finished with (it has not asked for the next one).
        var inFlight = false
        var ended = false
    }

    private let state = Locked(State())
    private let session: StoreKitSession

    init(session: StoreKitSession) {
        self.session = session
    }

    /// Whether the loop has taken everything delivered and finished with it, or has ended.
    var isIdle: Bool {
        state.withLock { $0.ended || ($0.queue.isEmpty && !$0.inFlight) }
    }

    /// What keeps the loop from being idle, for a message: how many updates wait for it, and whether it is still
    /// handling one it took.
    var holdUp: String? {
        state.withLock { state in
            guard !state.ended, !state.queue.isEmpty || state.inFlight else { return nil }
            var parts: [String] = []
            if state.inFlight { parts.append("it took an update and has not asked for the next") }
            if !state.queue.isEmpty { parts.append("\(state.queue.count) delivered and not taken") }
            return parts.joined(separator: ", ")
        }
    }

    /// The next update; `nil` once the app quit (the listener ended) or the waiting task was cancelled. Asking
    /// for it means the loop finished with the one before. It runs on the caller's actor (`actor`), as the
    /// iterator's `next(isolation:)` does.
    func next(isolation actor: isolated (any Actor)? = #isolation) async -> Element? {
        let immediate = state.withLock { state -> Element?? in
            state.inFlight = false
            if state.ended { return .some(nil) }
            guard !state.queue.isEmpty else { return nil }
            state.inFlight = true
            return .some(state.queue.removeFirst())
        }
        if let immediate {
            if immediate == nil || isIdle { session.listenerBecameIdle() }
            return immediate
        }
        session.listenerBecameIdle()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state -> Element?? in
                    if state.ended { return .some(nil) }
                    if !state.queue.isEmpty {
                        state.inFlight = true
                        return .some(state.queue.removeFirst())
                    }
                    state.waiting = continuation
                    return nil
                }
                if let resumeNow { continuation.resume(returning: resumeNow) }
            }
        } onCancel: {
            end()
        }
    }

    /// The next update already delivered, without waiting; `nil` when none waits. Taking it means the loop
    /// finished with the one before.
    func nextIfReady() -> Element? {
        let taken = state.withLock { state -> Element? in
            state.inFlight = false
            guard !state.ended, !state.queue.isEmpty else { return nil }
            state.inFlight = true
            return state.queue.removeFirst()
        }
        if taken == nil { session.listenerBecameIdle() }
        return taken
    }

    /// Hands updates to the loop, in order.
    func deliver(_ updates: [Element]) {
        guard !updates.isEmpty else { return }
        let handOff = state.withLock { state -> (CheckedContinuation<Element?, Never>, Element)? in
            guard !state.ended else { return nil }
            state.queue += updates
            guard let waiting = state.waiting else { return nil }
            state.waiting = nil
            state.inFlight = true
            return (waiting, state.queue.removeFirst())
        }
        if let (waiting, update) = handOff { waiting.resume(returning: update) }
    }

    /// Ends the loop: the app quit, or its task was cancelled. What was not taken is dropped (it waits in the
    /// store for the next launch, as unfinished transactions do).
    func end() {
        let waiting = state.withLock { state -> CheckedContinuation<Element?, Never>? in
            state.ended = true
            state.queue = []
            state.inFlight = false
            defer { state.waiting = nil }
            return state.waiting
        }
        waiting?.resume(returning: nil)
        session.listenerBecameIdle()
    }
}
