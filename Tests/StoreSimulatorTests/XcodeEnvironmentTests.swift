import Foundation
import Testing
import LocalEnvironment
import MatrixModel
import ReferenceApp
import StoreSimulator
import TestSupport

/// StoreKit Testing in Xcode has no App Store server: no App Store Server Notifications there.
/// Apple: https://developer.apple.com/documentation/appstoreservernotifications/environment
@Suite("Environments without App Store servers")
struct XcodeEnvironmentTests {
    // Apple: https://developer.apple.com/documentation/appstoreservernotifications/environment ("The server
    // environment, either sandbox or production")
    @Test("on Xcode's clock or with Xcode signed data no notification is sent; notifications are not observed there, serverNotifications is false (environment)",
          arguments: [(RenewalSchedule.xcode(.monthlyRenewalEveryFiveMinutes), SignedEnvironment.sandbox), (.real, .xcode)])
    func noNotifications(schedule: RenewalSchedule, signed: SignedEnvironment) async throws {
        let matrixCase = MatrixCase(id: "test", kind: "test", account: "a", steps: [])
        let session = try LocalSession(matrix: ExampleMatrix.matrix(cases: [matrixCase]), matrixCase: matrixCase, schedule: schedule,
                                       signedEnvironment: signed, app: .reference())
        _ = try await session.perform(Step(action: .launch), index: 0)
        guard case .observed(let bought, _) = try await session.perform(Step(action: .purchase, product: ExampleMatrix.monthly), index: 1) else {
            Issue.record("skipped")
            return
        }
        #expect(bought.access == ["plus"])
        #expect(bought.notifications == [] && session.withStore { $0.notifications.isEmpty })
        #expect(bought.serverNotifications == false)
        #expect(bought.notObserved?.contains("notifications") == true)
        // An expectation of notifications is not judged there; serverNotifications is.
        let expected = Expectation(notifications: ["SUBSCRIBED/INITIAL_BUY"], serverNotifications: false)
        #expect(Judge.differences(expected, bought, stepProduct: nil) { _ in nil }.isEmpty)
        #expect(!Judge.differences(Expectation(serverNotifications: true), bought, stepProduct: nil) { _ in nil }.isEmpty)
    }

    @Test("with a Sandbox clock and Sandbox signed data notifications are sent and judged")
    func sandboxSends() async throws {
        let h = try Harness(schedule: .sandbox(.default))
        _ = try await h.step(.launch)
        let bought = try await h.step(.purchase, ExampleMatrix.monthly)
        #expect(bought.notifications == ["SUBSCRIBED/INITIAL_BUY"] && bought.serverNotifications == true && bought.notObserved == nil)
    }

    @Test("without --signed-environment the signed environment follows the clock: Xcode's clock, Xcode's data")
    func followsClock() {
        #expect(SignedEnvironment.following(clock: "xcode:1003") == .xcode)
        #expect(SignedEnvironment.following(clock: "xcode") == .xcode)
        #expect(SignedEnvironment.following(clock: "sandbox:5") == .sandbox)
        #expect(SignedEnvironment.following(clock: nil) == .sandbox)
    }
}
