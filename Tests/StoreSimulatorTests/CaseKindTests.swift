import Testing
import MatrixModel
import TestSupport

/// The access sequence of each case kind in the embedded environment, by Apple's documented rules.
@Suite("Case kinds in the embedded environment")
struct CaseKindTests {
    let pro = ExampleMatrix.pro
    let monthly = ExampleMatrix.monthly
    let coins = ExampleMatrix.coins

    @Test("fresh purchase of a non-consumable grants access at once and after relaunch")
    func freshPurchase() async throws {
        let h = try Harness()
        let access = try await h.access([(.launch, nil), (.purchase, pro), (.relaunch, nil)])
        #expect(access == [[], ["pro"], ["pro"]])
    }

    @Test("a cancelled purchase sheet changes nothing and sends no notification")
    func cancel() async throws {
        let h = try Harness()
        _ = try await h.step(.launch)
        let observed = try await h.step(.purchase, pro) { $0.outcome = .userCancelled }
        #expect(observed.result == "userCancelled")
        #expect(observed.access == [])
        #expect(observed.notifications == [])
        #expect(h.store { $0.transactions.isEmpty })
    }

    // Apple: https://developer.apple.com/documentation/storekit/product/purchaseresult/pending
    @Test("Ask to Buy: pending grants nothing; approval arrives through Transaction.updates; decline creates nothing")
    func askToBuy() async throws {
        let approved = try Harness(store: StoreSettings(askToBuy: true))
        _ = try await approved.step(.launch)
        let pending = try await approved.step(.purchase, pro)
        #expect(pending.result == "pending")
        #expect(pending.access == [])
        let approval = try await approved.step(.approveAskToBuy, pro)
        #expect(approval.access == ["pro"])
        #expect(approval.notifications == ["ONE_TIME_CHARGE"])
        #expect(approved.store { $0.unfinishedTransactions(account: "a").isEmpty }, "the listener finishes the approved transaction")

        let declined = try Harness(store: StoreSettings(askToBuy: true))
        _ = try await declined.step(.launch)
        _ = try await declined.step(.purchase, pro)
        let decline = try await declined.step(.declineAskToBuy, pro)
        #expect(decline.access == [])
        #expect(decline.notifications == [])
        #expect(declined.store { $0.transactions.isEmpty })
    }

    // Apple: https://developer.apple.com/documentation/storekit/appstore/sync()
    @Test("restore: after reinstall and on a second device the entitlement is there; a new account has nothing to restore")
    func restore() async throws {
        let owner = try Harness(accounts: [Account(alias: "a", owns: [pro])])
        #expect(try await owner.access([(.launch, nil), (.reinstall, nil)]) == [["pro"], ["pro"]])
        let restored = try await owner.step(.restore)
        #expect(restored.result == "restored")
        _ = try await owner.step(.switchDevice)
        #expect(try await owner.step(.launch).access == ["pro"])

        let empty = try Harness()
        _ = try await empty.step(.launch)
        let nothing = try await empty.step(.restore)
        #expect(nothing.result == "nothingToRestore")
        #expect(nothing.access == [])
    }

    @Test("renewals keep access and count; each sends DID_RENEW")
    func renewal() async throws {
        let h = try Harness()
        _ = try await h.step(.launch)
        let bought = try await h.step(.purchase, monthly)
        let first = try await h.step(.renew, monthly)
        let second = try await h.step(.renew, monthly)
        #expect(bought.notifications == ["SUBSCRIBED/INITIAL_BUY"])
        #expect(first.renewals == 1 && second.renewals == 2)
        #expect(second.notifications == ["DID_RENEW"])
        #expect(second.access == ["plus"])
        let transaction = try #require(second.transactions.first { $0.productId == monthly })
        #expect(transaction.transactionReason == "RENEWAL")
        #expect(transaction.originalTransactionId != transaction.transactionId)
    }

    @Test("auto-renew off: access until the expiration date, expired with expirationIntent 1 after")
    func cancellation() async throws {
        let h = try Harness()
        _ = try await h.step(.launch)
        _ = try await h.step(.purchase, monthly)
        let off = try await h.step(.disableAutoRenew, monthly)
        #expect(off.notifications == ["DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED"])
        #expect(off.access == ["plus"])
        // The first period is the plan's one-week free trial, which applies by itself.
        let before = try await h.step(.advanceTime) { $0.by = ISO8601Duration(days: 6) }
        #expect(before.access == ["plus"])
        let after = try await h.step(.advanceTime, monthly) { $0.to = .expiration }
        #expect(after.access == [])
        #expect(after.subscriptionStatus == [ExampleMatrix.groupName: "expired"])
        #expect(after.notifications == ["EXPIRED/VOLUNTARY"])
        #expect(after.renewalInfo[ExampleMatrix.groupName]?.expirationIntent == 1)
    }

    // Apple: https://developer.apple.com/documentation/storekit/reducing-involuntary-subscriber-churn
    @Test("billing grace period: access until it ends, none in billing retry, back on recovery")
    func gracePeriod() async throws {
        let h = try Harness(store: StoreSettings(gracePeriodDays: 16))
        _ = try await h.step(.launch)
        _ = try await h.step(.purchase, monthly)
        _ = try await h.step(.failRenewal, monthly)
        let grace = try await h.step(.advanceTime, monthly) { $0.to = .expiration }
        #expect(grace.access == ["plus"])
        #expect(grace.subscriptionStatus[ExampleMatrix.groupName] == "inGracePeriod")
        #expect(grace.notifications == ["DID_FAIL_TO_RENEW/GRACE_PERIOD"])
        let info = try #require(grace.renewalInfo[ExampleMatrix.groupName])
        let graceEnd = try #require(info.gracePeriodExpiresDate)
        let expires = try #require(grace.transactions.first?.expiresDate)
        #expect(graceEnd - expires == 16 * 86_400_000)
        let retry = try await h.step(.advanceTime, monthly) { $0.to = .gracePeriodEnd }
        #expect(retry.access == [])
        #expect(retry.subscriptionStatus[ExampleMatrix.groupName] == "inBillingRetryPeriod")
        #expect(retry.notifications == ["GRACE_PERIOD_EXPIRED"])
        let recovered = try await h.step(.recoverBilling, monthly)
        #expect(recovered.access == ["plus"])
        #expect(recovered.notifications == ["DID_RENEW/BILLING_RECOVERY"])
    }

    @Test("billing retry without grace period grants no access; after 60 days it expires with expirationIntent 2")
    func billingRetry() async throws {
        let h = try Harness()
        _ = try await h.step(.launch)
        _ = try await h.step(.purchase, monthly)
        _ = try await h.step(.failRenewal, monthly) { $0.gracePeriod = false }
        let retry = try await h.step(.advanceTime, monthly) { $0.to = .expiration }
        #expect(retry.access == [])
        #expect(retry.notifications == ["DID_FAIL_TO_RENEW"])
        #expect(retry.renewalInfo[ExampleMatrix.groupName]?.isInBillingRetryPeriod == true)
        let expired = try await h.step(.advanceTime, monthly) { $0.to = .billingRetryEnd }
        #expect(expired.subscriptionStatus[ExampleMatrix.groupName] == "expired")
        #expect(expired.notifications == ["EXPIRED/BILLING_RETRY"])
        #expect(expired.renewalInfo[ExampleMatrix.groupName]?.expirationIntent == 2)
    }

    // Apple: https://developer.apple.com/documentation/appstoreservernotifications/notificationtype/refund
    @Test("a refund locks at once while the app runs, for a non-consumable and mid-period for a subscription")
    func refund() async throws {
        let h = try Harness()
        _ = try await h.step(.launch)
        _ = try await h.step(.purchase, pro)
        let refunded = try await h.step(.refund, pro)
        #expect(refunded.access == [])
        #expect(refunded.notifications == ["REFUND"])
        #expect(refunded.transactions.first { $0.productId == pro }?.revocationDate != nil)

        let s = try Harness()
        _ = try await s.step(.launch)
        _ = try await s.step(.purchase, monthly)
        _ = try await s.step(.advanceTime) { $0.by = ISO8601Duration(days: 10) }
        let revoked = try await s.step(.refund, monthly)
        #expect(revoked.access == [])
        #expect(revoked.subscriptionStatus[ExampleMatrix.groupName] == "revoked")
    }

    // Apple: https://developer.apple.com/documentation/storekit/supporting-family-sharing-in-your-app
    @Test("Family Sharing: the member gets a FAMILY_SHARED transaction and loses it on leaving; the organizer keeps access")
    func familySharing() async throws {
        let accounts = [Account(alias: "org", owns: [monthly]), Account(alias: "member", familyOrganizer: "org")]
        let h = try Harness(accounts: accounts, account: "member")
        let member = try await h.step(.launch)
        #expect(member.access == ["plus"])
        #expect(member.transactions.first?.inAppOwnershipType == "FAMILY_SHARED")
        let revoked = try await h.step(.revokeFamilySharing)
        #expect(revoked.access == [])
        #expect(revoked.notifications == ["REVOKE"])
        let organizer = try await h.step(.launch) { $0.account = "org" }
        #expect(organizer.access == ["plus"])
    }

    @Test("consumables are credited once per purchase, never in current entitlements, kept across relaunch")
    func consumable() async throws {
        let h = try Harness()
        _ = try await h.step(.launch)
        let first = try await h.step(.purchase, coins)
        let second = try await h.step(.purchase, coins)
        let relaunched = try await h.step(.relaunch)
        #expect(first.balance["coins"] == 100)
        #expect(second.balance["coins"] == 200)
        #expect(relaunched.balance["coins"] == 200)
        #expect(relaunched.entitlements == [])
        #expect(h.store { $0.allTransactions(account: "a").isEmpty }, "finished consumables leave Transaction.all")
    }

    // Apple: https://developer.apple.com/documentation/storekit/transaction/expirationdate (nil for non-renewing)
    @Test("a non-renewing subscription grants access for the duration the app gives it, though StoreKit keeps listing it")
    func nonRenewing() async throws {
        let h = try Harness()
        _ = try await h.step(.launch)
        #expect(try await h.step(.purchase, ExampleMatrix.season).access == ["season"])
        #expect(try await h.step(.advanceTime) { $0.by = ISO8601Duration(days: 364) }.access == ["season"])
        let expired = try await h.step(.advanceTime) { $0.by = ISO8601Duration(days: 2) }
        #expect(expired.access == [])
        #expect(expired.entitlements == [ExampleMatrix.season])
    }
}
