/// The executor a run's tasks prefer: a task executor of the run's own (one thread for a case, see `CaseThread`),
/// or the shared pool.
///
/// Task executors (`TaskExecutor`, `Task(executorPreference:)`) exist from iOS 18, macOS 15, tvOS 18, watchOS 11
/// and visionOS 2, and on Linux; on older Apple systems every task runs on the shared pool. Where a task runs
/// changes no answer, only how many threads a step wakes.
/// Apple: https://developer.apple.com/documentation/swift/taskexecutor
public struct PreferredExecutor: Sendable {
    /// A `TaskExecutor`, or `nil` for the shared pool.
    private let executor: (any AnyObject & Sendable)?

    /// The shared pool: no preference.
    public static let sharedPool = PreferredExecutor(erased: nil)

    /// The executor the current task's run prefers, when its runner set one (the shared pool otherwise).
    @TaskLocal public static var current = PreferredExecutor.sharedPool

    private init(erased executor: (any AnyObject & Sendable)?) {
        self.executor = executor
    }

    /// Prefers `executor`.
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    public init(_ executor: some TaskExecutor & AnyObject) {
        self.executor = executor
    }

    /// The executor, on platforms that have task executors; `nil` for the shared pool.
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    public var taskExecutor: (any TaskExecutor)? {
        executor as? any TaskExecutor
    }

    /// Starts an unstructured task that prefers this executor, as `Task(executorPreference:operation:)` does; the
    /// task inherits the current task's priority and task-local values.
    @discardableResult
    public func task<Success: Sendable>(_ operation: sending @escaping () async throws -> Success) -> Task<Success, any Error> {
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
            return Task(executorPreference: taskExecutor, operation: operation)
        }
        return Task(operation: operation)
    }

    /// A task that cannot throw; see ``task(_:)-(()->Success)``.
    @discardableResult
    public func task<Success: Sendable>(_ operation: sending @escaping () async -> Success) -> Task<Success, Never> {
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
            return Task(executorPreference: taskExecutor, operation: operation)
        }
        return Task(operation: operation)
    }

    /// Runs `operation` preferring this executor, as `withTaskExecutorPreference(_:operation:)` does, with
    /// ``current`` set to it for every task it starts.
    public func run<Success: Sendable>(_ operation: () async throws -> Success) async rethrows -> Success {
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
            return try await withTaskExecutorPreference(taskExecutor) {
                try await Self.$current.withValue(self, operation: operation)
            }
        }
        return try await Self.$current.withValue(self, operation: operation)
    }
}
