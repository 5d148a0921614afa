import Dispatch
import Foundation
import Testing
@testable import MatrixEngine

/// The executor a run with one job runs on: one thread, which a stuck job does not keep from the others.
@Suite("The case thread of a run with one job")
struct CaseThreadTests {
    /// The calling thread.
    static func threadID() -> ObjectIdentifier { ObjectIdentifier(Thread.current) }

    /// Blocks the calling thread until `semaphore` is signalled, as app code waiting on a semaphore does.
    static func block(on semaphore: DispatchSemaphore) { semaphore.wait() }

    @Test("tasks that prefer the executor, and the tasks they start preferring it, all run on its one thread")
    func oneThread() async {
        let thread = CaseThread()
        let ids = await withTaskExecutorPreference(thread) {
            await withTaskGroup(of: [ObjectIdentifier].self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        let first = Self.threadID()
                        await Task.yield()
                        let inner = await Task(executorPreference: thread) { Self.threadID() }.value
                        return [first, inner, Self.threadID()]
                    }
                }
                return await group.reduce(into: []) { $0 += $1 }
            }
        }
        #expect(ids.count == 60)
        #expect(Set(ids).count == 1, "\(Set(ids).count) threads")
        #expect(!ids.contains(Self.threadID()), "the test's own task does not prefer the executor")
    }

    @Test("a job that blocks its thread past the stall limit does not hold up the job queued behind it")
    func stuckJob() async {
        let thread = CaseThread(stallLimit: .milliseconds(100))
        let release = DispatchSemaphore(value: 0)
        let stuck = Task(executorPreference: thread) { Self.block(on: release) }
        let other = Task(executorPreference: thread) { 42 }
        let answered = await withTaskGroup(of: Int?.self) { group in
            group.addTask { await other.value }
            group.addTask {
                try? await Task.sleep(for: .seconds(20))
                return nil
            }
            let first = await group.next() ?? nil
            // Unblocks the stuck job whatever happened, so that the test ends.
            release.signal()
            group.cancelAll()
            return first
        }
        await stuck.value
        #expect(answered == 42, "the queued job did not run while the first one held the thread")
    }

    @Test("the thread ends when idle, and a later job starts one again")
    func idleThreadEnds() async {
        let thread = CaseThread(idleLimit: .milliseconds(20))
        let first: Int = await Task(executorPreference: thread) { 1 }.value
        // Polled rather than slept for once: on a loaded machine the idle thread may wake late.
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(20)
        while thread.hasThread, clock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        #expect(!thread.hasThread, "the thread did not end after its idle limit")
        let second: Int = await Task(executorPreference: thread) { 2 }.value
        #expect(first == 1 && second == 2)
    }
}
