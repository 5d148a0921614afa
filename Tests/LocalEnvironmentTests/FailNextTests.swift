import Foundation
@testable import LocalEnvironment
@testable import MatrixEngine
@testable import MatrixModel
import ReferenceApp
@testable import SimulatedStoreKit
@testable import TestSupport
import Testing

/// A step's `failNext` makes the next StoreKit call of a kind fail, as `SKTestSession.setSimulatedError(_:forAPI:)`
/// does, and the reference app reports it as an app should.
/// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/setsimulatederror(_:forapi:)
@Suite("failNext in the local environment")
struct FailNextTests {
    /// Runs `steps` for account `a` (owning `owns`) and returns each step's observation, or the error it threw.
    func run(_ steps: [Step], owns: [String] = []) async throws -> [Result<Observation, AdapterError>] {
        let matrixCase = MatrixCase(id: "c", kind: "fresh-purchase", account: "a", steps: steps)
        let matrix = ExampleMatrix.matrix(accounts: [Account(alias: "a", owns: owns)], cases: [matrixCase])
        let session = try LocalSession(matrix: matrix, matrixCase: matrixCase, app: .reference())
        var results: [Result<Observation, AdapterError>] = []
        for (index, step) in steps.enumerated() {
            do {
                guard case .observed(let observation, _) = try await session.perform(step, index: index) else {
                    Issue.record("step \(index) was skipped")
                    continue
                }
                results.append(.success(observation))
            } catch let error as AdapterError {
                results.append(.failure(error))
            }
        }
        await session.close()
        return results
    }

    func fail(_ call: StoreKitCall, _ error: String) -> FailNext { FailNext(call: call, error: error) }

    @Test("A purchase that throws StoreKitError.networkError is reported failed and grants nothing")
    func purchaseNetworkError() async throws {
        let results = try await run([
            Step(action: .launch),
            Step(action: .purchase, product: ExampleMatrix.pro, failNext: fail(.purchase, "networkError")),
            Step(action: .purchase, product: ExampleMatrix.pro),
        ])
        let failed = try results[1].get()
        #expect(failed.result == "failed")
        #expect(failed.message?.hasPrefix("StoreKitError.networkError") == true)
        #expect(failed.access == [] && failed.entitlements == [] && failed.transactionIds == [])
        // Only the next call fails: the purchase after it goes through.
        let retried = try results[2].get()
        #expect(retried.result == "success" && retried.access == ["pro"])
    }

    @Test("A purchase refused with a Product.PurchaseError is reported with that error")
    func purchaseError() async throws {
        let results = try await run([
            Step(action: .launch),
            Step(action: .purchase, product: ExampleMatrix.pro, failNext: fail(.purchase, "purchaseNotAllowed")),
        ])
        let observation = try results[1].get()
        #expect(observation.result == "failed")
        #expect(observation.message == "Product.PurchaseError.purchaseNotAllowed")
    }

    @Test("Products that fail to load at launch do not take away what the customer owns")
    func productsFailAtLaunch() async throws {
        let results = try await run([Step(action: .launch, failNext: fail(.products, "networkError"))], owns: [ExampleMatrix.pro])
        #expect(try results[0].get().access == ["pro"])
    }

    @Test("A restore whose AppStore.sync() the customer cancels is reported failed")
    func syncCancelled() async throws {
        let results = try await run([
            Step(action: .launch),
            Step(action: .restore, failNext: fail(.sync, "userCancelled")),
            Step(action: .restore),
        ], owns: [ExampleMatrix.pro])
        let cancelled = try results[1].get()
        #expect(cancelled.result == "failed" && cancelled.message == "StoreKitError.userCancelled")
        #expect(try results[2].get().result == "restored")
    }

    /// An unverified purchase is not delivered or finished, so it stays unfinished and arrives again, verified,
    /// at the next launch.
    /// Apple: https://developer.apple.com/documentation/storekit/transaction/updates
    @Test("An unverified consumable purchase is not credited, and is credited once it arrives verified after a relaunch")
    func unverifiedPurchase() async throws {
        let results = try await run([
            Step(action: .launch),
            Step(action: .purchase, product: ExampleMatrix.coins, failNext: fail(.verification, "invalidSignature")),
            Step(action: .relaunch),
            Step(action: .relaunch),
        ])
        let unverified = try results[1].get()
        #expect(unverified.result == "success")
        #expect(unverified.balance["coins", default: 0] == 0)
        #expect(try results[2].get().balance["coins"] == 100)
        #expect(try results[3].get().balance["coins"] == 100)
    }

    @Test("A failure no call of the step meets errors the step instead of passing it")
    func unmetFailure() async throws {
        let results = try await run([
            Step(action: .launch),
            Step(action: .observe, failNext: fail(.purchase, "networkError")),
        ])
        guard case .failure(let error) = results[1] else {
            Issue.record("the step passed")
            return
        }
        #expect(error.message.contains("the app made no Product.purchase(options:) call during this step"))
    }

    @Test("Every error name a matrix may give is a failure of the call's kind, and every StoreKit error case has a name")
    func namesCoverStoreKit() {
        for call in StoreKitCall.allCases {
            for name in call.errorNames {
                let failure = StoreKitFailure(FailNext(call: call, error: name))
                let fits = switch (call, failure) {
                case (.verification, .verification?), (.purchase, .purchase?): true
                case (.products, .storeKit?), (.purchase, .storeKit?), (.sync, .storeKit?): true
                default: false
                }
                #expect(fits, "\(call) \(name) gave \(String(describing: failure))")
            }
            #expect(StoreKitFailure(FailNext(call: call, error: "noSuchError")) == nil)
        }
        #expect(Set(StoreKitCall.storeKitErrors) == Set(StoreKitError.Name.allCases.map(\.rawValue)))
        #expect(Set(StoreKitCall.purchaseErrors) == Set(Product.PurchaseError.allCases.map(\.name)))
        #expect(Set(StoreKitCall.verificationErrors) == Set(VerificationResult<Transaction>.VerificationError.allCases.map { "\($0)" }))
        #expect(StoreKitFailure(FailNext(call: .sync, error: "invalidQuantity")) == nil)
    }
}
