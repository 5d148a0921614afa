import Foundation
@testable import LocalEnvironment
@testable import MatrixEngine
@testable import MatrixModel
import ReferenceApp
@testable import TestSupport
import Testing

/// What the store says about a step is the store's (`storeMessage`), never put in the app's mouth (`message`).
@Suite("Store messages in the local environment")
struct StoreMessageTests {
    func observations(_ steps: [Step], schedule: RenewalSchedule = .real) async throws -> [Observation] {
        let matrixCase = MatrixCase(id: "c", kind: "renewal", account: "a", steps: steps)
        let matrix = ExampleMatrix.matrix(cases: [matrixCase])
        let session = try LocalSession(matrix: matrix, matrixCase: matrixCase, schedule: schedule, app: .reference())
        var result: [Observation] = []
        for (index, step) in steps.enumerated() {
            guard case .observed(let observation, _) = try await session.perform(step, index: index) else {
                Issue.record("step \(index) was skipped")
                continue
            }
            result.append(observation)
        }
        await session.close()
        return result
    }

    @Test("a step while the app is not running: the store says so, the app says nothing")
    func appNotRunning() async throws {
        let seen = try await observations([Step(action: .launch), Step(action: .purchase, product: ExampleMatrix.monthly),
                                           Step(action: .quit), Step(action: .renew, product: ExampleMatrix.monthly)])
        #expect(seen[3].storeMessage == "the app is not running")
        #expect(seen[3].message == nil)
        #expect(seen[1].storeMessage == nil)
    }

    @Test("Sandbox's renewal limit stopping auto-renew is the store's message")
    func renewalLimit() async throws {
        let seen = try await observations([Step(action: .launch), Step(action: .purchase, product: ExampleMatrix.monthly),
                                           Step(action: .renew, product: ExampleMatrix.monthly, count: 12),
                                           Step(action: .advanceTime, product: ExampleMatrix.monthly, to: .expiration)],
                                          schedule: .sandbox(.default))
        let limit = try #require(seen[3].storeMessage)
        #expect(limit.contains("12 times"), "\(limit)")
        #expect(seen[3].message == nil)
    }
}
