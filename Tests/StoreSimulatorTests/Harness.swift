import LocalEnvironment
import MatrixModel
import ReferenceApp
import StoreSimulator
import TestSupport

/// Drives one case in the embedded environment step by step.
final class Harness {
    let session: LocalSession
    private var index = 0

    init(accounts: [Account] = [Account(alias: "a")], account: String = "a", store: StoreSettings = .init(),
         fault: AppFault? = nil, schedule: RenewalSchedule = .real, catalog: StoreKitConfiguration? = nil,
         tiers: [Tier]? = nil) throws {
        let matrixCase = MatrixCase(id: "test", kind: "test", account: account, store: store, steps: [])
        var matrix = ExampleMatrix.matrix(accounts: accounts, cases: [matrixCase])
        if let catalog { matrix.catalog = catalog }
        if let tiers { matrix.tiers = tiers }
        session = try LocalSession(matrix: matrix, matrixCase: matrixCase, schedule: schedule, app: .reference(faults: fault.map { [$0] } ?? []))
    }

    /// Reads or changes the case's store, under its lock.
    func store<Result: Sendable>(_ body: (AppStoreSimulator) throws -> Result) rethrows -> Result {
        try session.withStore(body)
    }

    /// Performs a step and returns what was observed; a skipped step is a test failure.
    @discardableResult
    func step(_ action: Action, _ product: String? = nil, configure: (inout Step) -> Void = { _ in }) async throws -> Observation {
        var step = Step(action: action, product: product)
        configure(&step)
        defer { index += 1 }
        switch try await session.perform(step, index: index) {
        case .observed(let observation, _): return observation
        case .skipped(let reason, _): throw HarnessError.skipped(reason)
        }
    }

    /// Performs steps and returns the access observed after each.
    func access(_ steps: [(Action, String?)]) async throws -> [[String]] {
        var result: [[String]] = []
        for (action, product) in steps {
            result.append(try await step(action, product).access)
        }
        return result
    }
}

enum HarnessError: Error {
    case skipped(String)
}
