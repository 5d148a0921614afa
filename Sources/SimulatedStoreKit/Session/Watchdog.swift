import Threading

/// The time limits on the runner's waits — a call into the app, the app's handling of what a step delivered,
/// a launch's first listener — kept for the whole process by one sleeping task rather than a timer per wait.
///
/// A wait registers its deadline and what to do if it passes (``watch(for:expire:)``), and ends its watch when
/// it is over (``end(_:)``): both take a lock and nothing else. The sleeping task wakes at the earliest
/// deadline it knows of, runs the `expire` of every watch whose deadline has passed, and sleeps on until the
/// next one; it ends when no watch is left, and a later watch starts another. Its sleep is never cancelled:
/// a cancelled `Task.sleep` keeps its timer and job until the deadline, so a timer per wait, cancelled when the
/// wait ends, would hold a minute's worth of them.
package final class Watchdog: Sendable {
    /// The process's watchdog.
    package static let shared = Watchdog()

    /// A registered wait, to end with ``end(_:)``.
    package struct Watch: Sendable {
        fileprivate let id: UInt64
    }

    private struct Entry {
        let id: UInt64
        let deadline: ContinuousClock.Instant
        let expire: @Sendable () -> Void
    }

    private struct State {
        var lastID: UInt64 = 0
        /// The waits being watched, in the order they began (a handful: one or two per case running).
        var entries: [Entry] = []
        /// When each sleeping task wakes; each deadline has one at or before it.
        var wakes: [ContinuousClock.Instant] = []
    }

    private let state = Locked(State())

    package init() {}

    /// Watches a wait that may last `limit`: `expire` runs (once, on the watchdog's task) if the wait has not
    /// ended by then. `expire` must not block: it should resume or cancel what waits.
    package func watch(for limit: Duration, expire: @escaping @Sendable () -> Void) -> Watch {
        let deadline = ContinuousClock.now.advanced(by: limit)
        let (id, sleeper) = state.withLock { state -> (UInt64, Bool) in
            state.lastID += 1
            state.entries.append(Entry(id: state.lastID, deadline: deadline, expire: expire))
            guard !state.wakes.contains(where: { $0 <= deadline }) else { return (state.lastID, false) }
            state.wakes.append(deadline)
            return (state.lastID, true)
        }
        if sleeper {
            // Detached: the sleeper must not hold the waiting code's task-local values (a StoreKit session) or
            // be cancelled with it.
            Task.detached { await self.sleep(until: deadline) }
        }
        return Watch(id: id)
    }

    /// Ends a watch. Returns false when its deadline passed first: its `expire` has run or is running.
    @discardableResult
    package func end(_ watch: Watch) -> Bool {
        state.withLock { state in
            guard let index = state.entries.firstIndex(where: { $0.id == watch.id }) else { return false }
            state.entries.remove(at: index)
            return true
        }
    }

    private func sleep(until first: ContinuousClock.Instant) async {
        var wake = first
        while true {
            try? await Task.sleep(until: wake, clock: .continuous)
            let now = ContinuousClock.now
            let (expired, next) = state.withLock { state -> ([Entry], ContinuousClock.Instant?) in
                if let index = state.wakes.firstIndex(of: wake) { state.wakes.remove(at: index) }
                let expired = state.entries.filter { $0.deadline <= now }
                state.entries.removeAll { $0.deadline <= now }
                guard let earliest = state.entries.map(\.deadline).min(),
                      !state.wakes.contains(where: { $0 <= earliest }) else { return (expired, nil) }
                state.wakes.append(earliest)
                return (expired, earliest)
            }
            for entry in expired { entry.expire() }
            guard let next else { return }
            wake = next
        }
    }
}
