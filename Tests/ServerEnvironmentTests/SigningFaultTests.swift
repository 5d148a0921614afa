import AppStoreModels
import Foundation
import MatrixModel
@testable import ServerEnvironment
import SignedData
import Signing
import Testing

/// `--signing-faults`: notifications a correct server refuses, and steps that fail when a backend accepts one.
/// Apple: https://developer.apple.com/documentation/appstoreservernotifications/responding-to-app-store-server-notifications
@Suite("Negative signing")
struct SigningFaultTests {
    let release = ServerRunTests.release

    func faultSettings(_ backend: TestBackend) throws -> ServerSettings {
        var settings = try ServerRunTests.settings(backend)
        settings.signingFaults = true
        return settings
    }

    @Test("each fault is refused by the simulator verifier for its own reason, and a genuine notification verifies")
    func faultsFailVerification() throws {
        let pki = try SimulatorPKI.default
        let faultPKI = try #require(FaultPKI.shared)
        var body = ResponseBodyV2DecodedPayload()
        body.notificationType = "ONE_TIME_CHARGE"
        body.notificationUUID = "00000001-0000-4000-8000-000000000001"
        body.version = "2.0"
        body.signedDate = MillisecondsDate(1_767_225_600_000)
        var data = ResponseBodyV2DecodedPayload.NotificationData()
        data.bundleId = release.app.bundleId
        data.environment = "Sandbox"
        body.data = data
        let genuine = OutgoingNotification(notificationUUID: "00000001-0000-4000-8000-000000000001", notificationType: "ONE_TIME_CHARGE",
                                           signedDate: 1_767_225_600_000, account: "a", origin: "step", signedPayload: try pki.sign(payload: Data(body.compactJSON)))
        let verifier = try pki.verifier(bundleId: release.app.bundleId, appAppleId: release.app.appAppleId, environment: "Sandbox")
        #expect((try? verifier.verifyAndDecodeNotification(genuine.signedPayload)) != nil)
        var uuids: Set<String> = [genuine.notificationUUID]
        var outcomes: [String: String] = [:]
        for fault in SigningFault.allCases {
            let faulted = try fault.apply(to: genuine, pki: pki, faultPKI: faultPKI)
            #expect(faulted.origin == "signingFault")
            #expect(faulted.fault == fault.rawValue)
            #expect(uuids.insert(faulted.notificationUUID).inserted)
            do {
                _ = try verifier.verifyAndDecodeNotification(faulted.signedPayload)
                outcomes[fault.rawValue] = "accepted"
            } catch let error as SignedDataError {
                outcomes[fault.rawValue] = error.code.rawValue
            }
        }
        #expect(outcomes == ["wrongChain": "VERIFICATION_FAILURE", "missingMarkerOID": "VERIFICATION_FAILURE",
                             "wrongBundleId": "INVALID_APP_IDENTIFIER", "wrongEnvironment": "INVALID_ENVIRONMENT",
                             "alteredPayload": "VERIFICATION_FAILURE"])
    }

    @Test("a backend that verifies passes the fresh-purchase and refund cases with every fault refused")
    func verifyingBackendPasses() async throws {
        let backend = try TestBackend(matrix: release, behaviour: .init(verifies: true))
        let records = try await ServerRunTests.run(release, faultSettings(backend), cases: ["fresh-purchase/pro", "refund/pro"])
        #expect(ServerRunTests.failing(records) == [])
        let faults = records.compactMap(\.observed?.server).flatMap(\.deliveries).filter { $0.origin == "signingFault" }
        #expect(faults.count == 5 * records.filter { !($0.observed?.server?.deliveries.filter { $0.origin == "step" }.isEmpty ?? true) }.count)
        #expect(Set(faults.compactMap(\.fault)) == Set(SigningFault.allCases.map(\.rawValue)))
        #expect(faults.allSatisfy { $0.attempts.map(\.httpStatus) == [400] })
    }

    @Test("a backend that does not verify fails every step that sent faults, and acting on the forged REFUND changes its access")
    func trustingBackendFails() async throws {
        let backend = try TestBackend(matrix: release)
        let records = try await ServerRunTests.run(release, faultSettings(backend), cases: ["fresh-purchase/pro"])
        let purchase = try #require(records.first { $0.action.action == .purchase })
        #expect(purchase.verdict == .fail)
        let reason = purchase.reason ?? ""
        for fault in SigningFault.allCases { #expect(reason.contains("accepted a notification a correct server refuses (\(fault.rawValue)")) }
        #expect(reason.contains("access changed from [\"pro\"] to []"))
    }
}
