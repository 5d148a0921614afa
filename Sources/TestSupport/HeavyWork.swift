/// Work that computes for long stretches between suspension points, run at utility priority.
///
/// On Linux each task priority has a pool of worker threads of its own, one per core. Swift Testing runs every
/// test at the default priority, on one such pool, and work that holds a thread for a long stretch (an
/// in-process `matrix verify` of a whole run, a fault score) keeps the other tests' tasks waiting for a
/// thread: a test that waits for a driver's answer or a timer then resumes seconds late, and its deadline
/// passes. Such work runs here, on the utility pool's threads, while the default pool stays free for tests
/// that wait.
///
/// The caller's wait does not raise the work's priority (awaiting a task's value would), and the work sees none
/// of the caller's task-local values: it must not record issues (`#expect`); it returns what it found.
public enum HeavyWork {
    /// Runs `body` at utility priority and returns its result.
    public static func run<Value: Sendable>(_ body: @escaping @Sendable () async -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            Task.detached(priority: .utility) { continuation.resume(returning: await body()) }
        }
    }

    /// Runs `body` at utility priority and returns its result or throws its error.
    public static func run<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            Task.detached(priority: .utility) {
                do {
                    continuation.resume(returning: try await body())
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}
