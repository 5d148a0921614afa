import Foundation
@testable import LocalEnvironment
@testable import MatrixEngine
@testable import MatrixModel
import ReferenceApp
@testable import StoreSimulator
@testable import TestSupport
import Testing

/// A failure in the embedded environment is evidence (an `error` verdict with its reason), never a quiet gap.
@Suite("No silent failures in the local environment")
struct NoSilentFailureTests {
    /// A signer whose key is gone.
    struct BrokenSigner: PayloadSigner {
        struct KeyGone: Error, CustomStringConvertible {
            var description: String { "the signing key is unavailable" }
        }

        func sign(_ payload: Data) throws -> String { throw KeyGone() }
    }

    @Test("A signature that cannot be made makes the step an error naming what was not signed; no item is left out")
    func signingFailure() async throws {
        let matrixCase = MatrixCase(id: "buy", kind: "fresh-purchase", account: "a", steps: [
            Step(action: .launch), Step(action: .purchase, product: ExampleMatrix.pro),
        ])
        let matrix = ExampleMatrix.matrix(cases: [matrixCase])
        let session = try LocalSession(matrix: matrix, matrixCase: matrixCase, app: .reference(), signer: BrokenSigner())
        _ = try await session.perform(matrixCase.steps[0], index: 0)
        let error = await #expect(throws: AdapterError.self) {
            _ = try await session.perform(matrixCase.steps[1], index: 1)
        }
        #expect(error?.message.contains("cannot sign the transaction") == true)
        #expect(error?.message.contains("the signing key is unavailable") == true)
    }

    @Test("A renewal that cannot be made stops the clock with its reason, instead of being skipped until the event limit")
    func renewalFailure() async throws {
        let matrixCase = MatrixCase(id: "renew", kind: "renewal", account: "a", steps: [])
        let matrix = ExampleMatrix.matrix(cases: [matrixCase])
        let session = try LocalSession(matrix: matrix, matrixCase: matrixCase, app: .reference())
        _ = try await session.perform(Step(action: .launch), index: 0)
        _ = try await session.perform(Step(action: .purchase, product: ExampleMatrix.monthly), index: 1)
        let key = try session.withStore { try $0.subscriptionKey(account: "a", productID: ExampleMatrix.monthly) }
        // The product the subscription renews to disappears from the catalog.
        session.withStore { $0.subscriptions[key]?.autoRenewProductId = "com.example.gone" }
        let error = await #expect(throws: AdapterError.self) {
            _ = try await session.perform(Step(action: .renew, product: ExampleMatrix.monthly), index: 2)
        }
        #expect(error?.message == "the catalog has no product \"com.example.gone\"")
    }
}
