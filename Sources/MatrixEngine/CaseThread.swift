import Dispatch
import Foundation
import Threading

/// The one thread a run with one job runs its cases on: a task executor that the runner prefers
/// (`withTaskExecutorPreference`) and that an adapter's own tasks can prefer too (``current``).
///
/// A step hands work between tasks many times (the runner, a bounded call into the app, the app's actor).
/// On the shared pool each hand-off wakes another thread, often on the other core, and on a virtual machine
/// the wake-ups cost a good part of a run's CPU time; on one thread a task that waits leaves the thread to
/// the task it waits for, and nothing needs waking.
///
/// A job that holds the thread for ``stallLimit`` while others wait (app code that blocks its thread on a
/// semaphore, a lock or a loop) does not hold up the rest: they get a new thread, and the stuck one ends
/// once its job returns. The thread ends after ``idleLimit`` without work, and the next job starts one
/// again, so an executor that outlives its run (a call into the app left running) holds no thread.
///
/// A thread and a semaphore, where the style is tasks and no semaphores: a task executor runs jobs on a thread it
/// owns, and the semaphore is how that thread waits for work without spinning. Task executors need iOS 18 and
/// macOS 15; on older Apple systems a run stays on the shared pool (``PreferredExecutor/caseThread(if:)``).
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
public final class CaseThread: TaskExecutor {
    /// How long one job may hold the thread while other jobs wait before they get a thread of their own.
    public let stallLimit: Duration
    /// How long the thread waits for work before it ends.
    public let idleLimit: Duration

    private struct State {
        /// Jobs not started, oldest first from `head`.
        var queue: [UnownedJob] = []
        var head = 0
        /// The generation of the thread that takes jobs; a stuck thread that was replaced is of an older one.
        var generation = 0
        /// Whether a thread of the current generation exists.
        var running = false
        /// Whether that thread waits for work.
        var idle = false
        /// When the job that thread runs started.
        var jobStart: ContinuousClock.Instant?
        /// Whether a check for a stuck job is scheduled.
        var watching = false

        var hasWaitingJobs: Bool { head < queue.count }
    }

    private let state = Locked(State())
    private let wakeup = DispatchSemaphore(value: 0)

    public init(stallLimit: Duration = .seconds(1), idleLimit: Duration = .seconds(1)) {
        self.stallLimit = stallLimit
        self.idleLimit = idleLimit
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        enum Next { case nothing, wake, start(Int), watch }
        let next = state.withLock { state -> Next in
            state.queue.append(job)
            if !state.running {
                state.running = true
                return .start(state.generation)
            }
            if state.idle {
                state.idle = false
                return .wake
            }
            // The thread runs a job: it takes this one next, unless that job never returns.
            if !state.watching {
                state.watching = true
                return .watch
            }
            return .nothing
        }
        switch next {
        case .nothing: break
        case .wake: wakeup.signal()
        case .start(let generation): startThread(generation: generation)
        case .watch: watch(after: stallLimit)
        }
    }

    /// Whether a thread takes the executor's jobs now.
    var hasThread: Bool { state.withLock { $0.running } }

    private func startThread(generation: Int) {
        let thread = Thread { [self] in work(generation: generation) }
        thread.name = "matrix-case"
        thread.start()
    }

    /// Checks, after `delay`, whether the thread's job has held it for ``stallLimit`` while jobs wait.
    private func watch(after delay: Duration) {
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.dispatchInterval(delay)) { [self] in
            enum Next { case done, start(Int), again(Duration) }
            let next = state.withLock { state -> Next in
                guard state.hasWaitingJobs, let started = state.jobStart else {
                    state.watching = false
                    return .done
                }
                let held = ContinuousClock.now - started
                guard held >= stallLimit else { return .again(stallLimit - held) }
                state.generation += 1
                state.jobStart = nil
                state.watching = false
                return .start(state.generation)
            }
            switch next {
            case .done: break
            case .start(let generation): startThread(generation: generation)
            case .again(let delay): watch(after: delay)
            }
        }
    }

    private func work(generation: Int) {
        let executor = asUnownedTaskExecutor()
        enum Next { case run(UnownedJob, watch: Bool), wait, end }
        while true {
            let next = state.withLock { state -> Next in
                guard state.generation == generation else { return .end }
                state.jobStart = nil
                guard state.hasWaitingJobs else {
                    state.idle = true
                    return .wait
                }
                let job = state.queue[state.head]
                state.head += 1
                if !state.hasWaitingJobs {
                    state.queue.removeAll(keepingCapacity: true)
                    state.head = 0
                }
                state.jobStart = .now
                // Jobs wait behind this one: watch for it never returning.
                let watch = state.hasWaitingJobs && !state.watching
                if watch { state.watching = true }
                return .run(job, watch: watch)
            }
            switch next {
            case .run(let job, let watch):
                if watch { self.watch(after: stallLimit) }
                job.runSynchronously(on: executor)
            case .end:
                return
            case .wait:
                if wakeup.wait(timeout: .now() + Self.dispatchInterval(idleLimit)) == .timedOut {
                    let ended = state.withLock { state -> Bool in
                        // An enqueue that found the thread idle signals: take that signal instead of ending.
                        guard state.idle, state.generation == generation else { return false }
                        state.idle = false
                        state.running = false
                        return true
                    }
                    if ended { return }
                    wakeup.wait()
                }
            }
        }
    }

    private static func dispatchInterval(_ duration: Duration) -> DispatchTimeInterval {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(max(1, Int(clamping: seconds) &* 1_000_000_000 &+ Int(attoseconds / 1_000_000_000)))
    }
}

extension PreferredExecutor {
    /// A thread of the run's own (``CaseThread``) when `wanted` and the platform has task executors; the shared
    /// pool otherwise.
    public static func caseThread(if wanted: Bool) -> PreferredExecutor {
        if wanted, #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
            return PreferredExecutor(CaseThread())
        }
        return .sharedPool
    }
}
