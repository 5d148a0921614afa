import Foundation
@testable import LocalEnvironment
@testable import MatrixModel
import ReferenceApp
@testable import SignedData
import Signing
@testable import StoreSimulator
@testable import TestSupport
import Testing
import Threading

/// A notification embeds the transaction and renewal info the step signed, not second signatures of them.
@Suite("Signing reuse")
struct SigningReuseTests {
    /// Signs by numbering: `jws-<n>.<payload as text>`; counts the signatures.
    final class CountingSigner: PayloadSigner, Sendable {
        private let signed = Locked(0)

        /// Signatures made so far.
        var count: Int { signed.withLock { $0 } }

        func sign(_ payload: Data) throws -> String {
            let number = signed.withLock { count -> Int in
                count += 1
                return count
            }
            return "jws-\(number)." + String(decoding: payload, as: UTF8.self)
        }
    }

    /// The payload part of a JWS made by ``CountingSigner``, as JSON.
    private func payload(_ jws: String) throws -> [String: Any] {
        let text = try #require(jws.split(separator: ".", maxSplits: 1).last)
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test("Buying a subscription signs its transaction and renewal info once; the notification embeds those very JWS")
    func subscribe() async throws {
        let matrixCase = MatrixCase(id: "test", kind: "test", account: "a", steps: [])
        let matrix = ExampleMatrix.matrix(cases: [matrixCase])
        let signer = CountingSigner()
        let session = try LocalSession(matrix: matrix, matrixCase: matrixCase, app: .reference(), signer: signer)
        _ = try await session.perform(Step(action: .launch), index: 0)
        let outcome = try await session.perform(Step(action: .purchase, product: ExampleMatrix.monthly), index: 1)
        guard case .observed(let observation, _) = outcome else {
            Issue.record("the purchase was skipped")
            return
        }
        let byKind = Dictionary(grouping: observation.signedData, by: \.kind)
        let transaction = try #require(byKind["transaction"]?.first?.jws)
        let renewalInfo = try #require(byKind["renewalInfo"]?.first?.jws)
        let notification = try #require(byKind["notification"]?.first?.jws)
        #expect(observation.notifications == ["SUBSCRIBED/INITIAL_BUY"])
        // One signature per signed item: nothing signed twice.
        #expect(signer.count == observation.signedData.count)
        #expect(observation.signedData.count == 3)
        let data = try #require(try payload(notification)["data"] as? [String: Any])
        #expect(data["signedTransactionInfo"] as? String == transaction)
        #expect(data["signedRenewalInfo"] as? String == renewalInfo)
        // The reused JWS carries the notification's own signing time.
        #expect(try payload(transaction)["signedDate"] as? Int64 == (try payload(notification)["signedDate"] as? Int64))
    }
}
