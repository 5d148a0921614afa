import Foundation
import LocalEnvironment
import MatrixModel
import ReferenceApp
import StoreSimulator
import TestSupport
import Testing

/// Each notification embeds its own event's transaction and renewal info, as they were then.
/// Apple: https://developer.apple.com/documentation/appstoreservernotifications/responsebodyv2decodedpayload
@Suite("Notification payloads are their event's snapshot")
struct NotificationSnapshotTests {
    func session(accounts: [Account] = [Account(alias: "a")], account: String = "a") throws -> LocalSession {
        let matrixCase = MatrixCase(id: "test", kind: "test", account: account, steps: [])
        return try LocalSession(matrix: ExampleMatrix.matrix(accounts: accounts, cases: [matrixCase]), matrixCase: matrixCase, app: .reference(), signer: ReadableSigner())
    }

    func observe(_ session: LocalSession, _ step: Step, _ index: Int) async throws -> Observation {
        guard case .observed(let observation, _) = try await session.perform(step, index: index) else {
            throw HarnessError.skipped("step \(index)")
        }
        return observation
    }

    // Apple: https://developer.apple.com/documentation/appstoreservernotifications/responsebodyv2decodedpayload
    @Test("three renewals in one step: each DID_RENEW embeds its own renewal, signed at its own time, with that moment's renewalDate (responsebodyv2decodedpayload)")
    func severalRenewals() async throws {
        let s = try session()
        _ = try await observe(s, Step(action: .launch), 0)
        _ = try await observe(s, Step(action: .purchase, product: ExampleMatrix.yearly), 1)
        let renewed = try await observe(s, Step(action: .renew, product: ExampleMatrix.yearly, count: 3), 2)
        #expect(renewed.notifications == ["DID_RENEW", "DID_RENEW", "DID_RENEW"])
        let embedded = renewed.signedData.filter { $0.kind == "notification" }.compactMap { ReadableSigner.notification($0.jws) }
        #expect(embedded.count == 3)
        let ids = embedded.compactMap { $0.transaction?["transactionId"] as? String }
        #expect(Set(ids).count == 3, "each notification names its own renewal: \(ids)")
        for note in embedded {
            let signedAt = note.payload["signedDate"] as? Int64
            let purchased = note.transaction?["purchaseDate"] as? Int64
            let expires = note.transaction?["expiresDate"] as? Int64
            #expect(signedAt != nil && signedAt == purchased, "signed at its renewal")
            #expect(note.transaction?["signedDate"] as? Int64 == signedAt)
            #expect(note.renewalInfo?["renewalDate"] as? Int64 == expires, "renewal info of that moment")
            #expect((note.payload["data"] as? [String: Any])?["status"] as? Int == 1)
        }
        // The step's own transaction and renewal info are the end of the step.
        let latest = renewed.transactions.first { $0.productId == ExampleMatrix.yearly }
        #expect(ids.last == latest?.transactionId && Set(ids).contains(latest?.transactionId ?? "") && ids.first != latest?.transactionId)
    }

    @Test("a member's notification for the organizer's renewal embeds the member's FAMILY_SHARED transaction of that moment")
    func familyMember() async throws {
        // Plus Monthly is family-shareable.
        let accounts = [Account(alias: "org", owns: [ExampleMatrix.monthly]), Account(alias: "member", familyOrganizer: "org")]
        let s = try session(accounts: accounts, account: "member")
        _ = try await observe(s, Step(action: .launch), 0)
        _ = try await observe(s, Step(action: .renew, product: ExampleMatrix.monthly, count: 2, account: "org"), 1)
        let member = try await observe(s, Step(action: .observe), 2)
        #expect(member.notifications == ["DID_RENEW", "DID_RENEW"])
        let embedded = member.signedData.filter { $0.kind == "notification" }.compactMap { ReadableSigner.notification($0.jws) }
        let owners = embedded.compactMap { $0.transaction?["inAppOwnershipType"] as? String }
        #expect(owners == ["FAMILY_SHARED", "FAMILY_SHARED"])
        let expiries = embedded.compactMap { $0.transaction?["expiresDate"] as? Int64 }
        #expect(expiries.count == 2 && expiries[0] < expiries[1], "each renewal's own period: \(expiries)")
    }
}
