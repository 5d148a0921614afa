import Testing
import MatrixModel
import ReferenceApp
import TestSupport

/// The acceptance scenarios drawn from real bug reports (S01–S18): the reference app shows the expected access,
/// and the app fault that stands for the bug shows it differently at the step the scenario names.
@Suite("Scenarios from real bug reports")
struct ScenarioTests {
    let n = ExampleMatrix.pro
    let m = ExampleMatrix.monthly
    let y = ExampleMatrix.yearly
    let c = ExampleMatrix.coins
    let nr = ExampleMatrix.weekPass

    // MARK: S01, S02 — refunds

    func refundWhileRunning(_ fault: AppFault?) async throws -> [[String]] {
        let h = try Harness(fault: fault)
        return try await h.access([(.launch, nil), (.purchase, n), (.refund, n), (.relaunch, nil)])
    }

    // Apple: https://developer.apple.com/documentation/storekit/transaction/updates (revocations arrive as updates)
    @Test("S01: a refund while the app runs revokes at once; an app that drops already-processed IDs keeps access")
    func s01() async throws {
        #expect(try await refundWhileRunning(nil) == [[], ["pro"], [], []])
        #expect(try await refundWhileRunning(.dropsProcessedTransactionIds) == [[], ["pro"], ["pro"], []])
    }

    @Test("S01 variant: a refunded subscription is locked at once mid-period, not at period end")
    func s01Subscription() async throws {
        let h = try Harness()
        _ = try await h.step(.launch)
        #expect(try await h.step(.purchase, m).access == ["plus"])
        _ = try await h.step(.advanceTime) { $0.by = ISO8601Duration(days: 12) }
        let refunded = try await h.step(.refund, m)
        #expect(refunded.access == [])
        let expires = try #require(refunded.transactions.first { $0.productId == m }?.expiresDate)
        #expect(expires > h.store { $0.now }, "the period had not ended when access stopped")
    }

    @Test("S02: an entitlement set that is never cleared keeps a refunded product until relaunch")
    func s02() async throws {
        #expect(try await refundWhileRunning(.entitlementSetNeverCleared) == [[], ["pro"], ["pro"], []])
    }

    // MARK: S03, S04 — Ask to Buy

    // Apple: https://developer.apple.com/documentation/storekit/transaction/updates ("create a Task to iterate updates as soon as your app launches")
    @Test("S03: an approval delivered at launch unlocks without opening the store view; a late listener misses it")
    func s03() async throws {
        func run(_ fault: AppFault?) async throws -> [String] {
            let h = try Harness(store: StoreSettings(askToBuy: true), fault: fault)
            _ = try await h.step(.launch)
            let pending = try await h.step(.purchase, n)
            #expect(pending.result == "pending" && pending.access == [])
            _ = try await h.step(.quit)
            _ = try await h.step(.approveAskToBuy, n)
            return try await h.step(.launch).access
        }
        #expect(try await run(nil) == ["pro"])
        #expect(try await run(.lateUpdatesListener) == [])
    }

    // Apple: https://developer.apple.com/documentation/storekit/product/purchaseresult/pending
    @Test("S04: pending is a result, not an error, and grants nothing; decline creates nothing; approve unlocks")
    func s04() async throws {
        func pending(_ fault: AppFault?) async throws -> Observation {
            let h = try Harness(store: StoreSettings(askToBuy: true), fault: fault)
            _ = try await h.step(.launch)
            return try await h.step(.purchase, m)
        }
        let reference = try await pending(nil)
        #expect(reference.result == "pending" && reference.access == [])
        #expect(try await pending(.pendingTreatedAsFailure).result == "failed")
        #expect(try await pending(.pendingUnlocks).access == ["plus"])

        let declined = try Harness(store: StoreSettings(askToBuy: true))
        _ = try await declined.step(.launch)
        _ = try await declined.step(.purchase, m)
        let decline = try await declined.step(.declineAskToBuy, m)
        #expect(decline.access == [] && decline.transactionIds == [] && decline.notifications == [])
        #expect(declined.store { $0.transactions.isEmpty })

        let approved = try Harness(store: StoreSettings(askToBuy: true))
        _ = try await approved.step(.launch)
        _ = try await approved.step(.purchase, m)
        #expect(try await approved.step(.approveAskToBuy, m).access == ["plus"])
    }

    // MARK: S05, S06 — where transactions arrive

    @Test("S05: a same-device purchase() result unlocks; an app that only observes updates never sees it")
    func s05() async throws {
        func run(_ fault: AppFault?) async throws -> [[String]] {
            try await Harness(fault: fault).access([(.launch, nil), (.purchase, n), (.relaunch, nil)])
        }
        #expect(try await run(nil) == [[], ["pro"], ["pro"]])
        #expect(try await run(.ignoresPurchaseResult)[1] == [])
    }

    @Test("S06: three renewals made while the app was closed are there at launch; the latest is the third renewal")
    func s06() async throws {
        func run(_ fault: AppFault?) async throws -> Observation {
            let h = try Harness(fault: fault)
            _ = try await h.step(.launch)
            #expect(try await h.step(.purchase, m).access == ["plus"])
            _ = try await h.step(.quit)
            _ = try await h.step(.renew, m) { $0.count = 3 }
            return try await h.step(.launch)
        }
        let reference = try await run(nil)
        #expect(reference.access == ["plus"])
        #expect(reference.renewals == 3)
        let latest = try #require(reference.transactions.first { $0.productId == m })
        #expect(latest.transactionReason == "RENEWAL")
        #expect(try await run(.cachesExpirationDate).access == [])
    }

    // MARK: S07, S08 — billing

    @Test("S07: access through the grace period, none after it ends unresolved, back when billing recovers")
    func s07() async throws {
        func run(_ fault: AppFault?) async throws -> [[String]] {
            let h = try Harness(store: StoreSettings(gracePeriodDays: 16), fault: fault)
            var access: [[String]] = []
            _ = try await h.step(.launch)
            access.append(try await h.step(.purchase, m).access)
            _ = try await h.step(.failRenewal, m)
            access.append(try await h.step(.advanceTime, m) { $0.to = .expiration }.access)
            access.append(try await h.step(.advanceTime) { $0.by = ISO8601Duration(days: 15) }.access)
            access.append(try await h.step(.advanceTime, m) { $0.to = .gracePeriodEnd }.access)
            access.append(try await h.step(.recoverBilling, m).access)
            return access
        }
        #expect(try await run(nil) == [["plus"], ["plus"], ["plus"], [], ["plus"]])
        #expect(try await run(.deniesGracePeriod) == [["plus"], [], [], [], ["plus"]])
    }

    @Test("S08: billing retry grants nothing; recovery within retry restores; after 60 days expired with intent 2")
    func s08() async throws {
        func failed(_ fault: AppFault?) async throws -> Harness {
            let h = try Harness(fault: fault)
            _ = try await h.step(.launch)
            _ = try await h.step(.purchase, m)
            _ = try await h.step(.failRenewal, m) { $0.gracePeriod = false }
            return h
        }
        let recovered = try await failed(nil)
        let retry = try await recovered.step(.advanceTime, m) { $0.to = .expiration }
        #expect(retry.access == [] && retry.subscriptionStatus[ExampleMatrix.groupName] == "inBillingRetryPeriod")
        #expect(try await recovered.step(.recoverBilling, m).access == ["plus"])

        let gaveUp = try await failed(nil)
        _ = try await gaveUp.step(.advanceTime, m) { $0.to = .expiration }
        let start = gaveUp.store { $0.now }
        let expired = try await gaveUp.step(.advanceTime, m) { $0.to = .billingRetryEnd }
        #expect(gaveUp.store { $0.now } - start == 60 * 86_400_000)
        #expect(expired.access == [] && expired.subscriptionStatus[ExampleMatrix.groupName] == "expired")
        #expect(expired.renewalInfo[ExampleMatrix.groupName]?.expirationIntent == 2)

        let faulty = try await failed(.grantsBillingRetry)
        #expect(try await faulty.step(.advanceTime, m) { $0.to = .expiration }.access == ["plus"])
    }

    // MARK: S09 — upgrade

    // Apple: https://developer.apple.com/documentation/storekit/transaction/isupgraded
    @Test("S09: an upgrade takes effect at once, the old transaction is isUpgraded, only the new product grants access")
    func s09() async throws {
        func run(_ fault: AppFault?) async throws -> [[String]] {
            let h = try Harness(fault: fault)
            var access: [[String]] = []
            _ = try await h.step(.launch)
            access.append(try await h.step(.purchase, m).access)
            let upgraded = try await h.step(.purchase, y)
            access.append(upgraded.access)
            if fault == nil {
                #expect(upgraded.transactions.first { $0.productId == m }?.isUpgraded == true)
                #expect(upgraded.notifications == ["DID_CHANGE_RENEWAL_PREF/UPGRADE"])
            }
            access.append(try await h.step(.disableAutoRenew, y).access)
            access.append(try await h.step(.advanceTime, y) { $0.to = .expiration }.access)
            return access
        }
        #expect(try await run(nil) == [["plus"], ["premium"], ["premium"], []])
        #expect(try await run(.keepsUpgradedProduct)[1] == ["plus", "premium"])
    }

    // MARK: S10–S12 — consumables

    @Test("S10: two consumables credit 200 and finish; relaunch keeps 200; never-finished consumables replay")
    func s10() async throws {
        func run(_ fault: AppFault?) async throws -> [Int?] {
            let h = try Harness(fault: fault)
            _ = try await h.step(.launch)
            var balances: [Int?] = []
            balances.append(try await h.step(.purchase, c).balance["coins"])
            balances.append(try await h.step(.purchase, c).balance["coins"])
            balances.append(try await h.step(.relaunch).balance["coins"])
            if fault == nil { #expect(h.store { $0.unfinishedTransactions(account: "a").isEmpty }) }
            return balances
        }
        #expect(try await run(nil) == [100, 200, 200])
        #expect(try await run(.consumablesNeverFinished) == [100, 200, 400])
    }

    @Test("S11: a consumable credited but not finished is not credited again when it is replayed at launch")
    func s11() async throws {
        func run(_ fault: AppFault?) async throws -> [Int] {
            let h = try Harness(fault: fault)
            _ = try await h.step(.launch)
            let bought = try await h.step(.purchase, c) { $0.terminate = .beforeFinish }
            let relaunched = try await h.step(.launch)
            return [bought.balance["coins"] ?? 0, relaunched.balance["coins"] ?? 0]
        }
        #expect(try await run(nil) == [100, 100])
        #expect(try await run(.creditsConsumablePerEvent) == [100, 200])
    }

    @Test("S12: killed as purchase() returns: +0, then +100 once at relaunch and finished, whatever the app's order (the kill is at StoreKit's surface)")
    func s12() async throws {
        func run(_ fault: AppFault?) async throws -> [Int] {
            let h = try Harness(fault: fault)
            _ = try await h.step(.launch)
            let killed = try await h.step(.purchase, c) { $0.terminate = .beforeDelivery }
            let relaunched = try await h.step(.launch)
            let again = try await h.step(.relaunch)
            if fault == nil { #expect(h.store { $0.unfinishedTransactions(account: "a").isEmpty }) }
            return [killed.balance["coins"] ?? 0, relaunched.balance["coins"] ?? 0, again.balance["coins"] ?? 0]
        }
        #expect(try await run(nil) == [0, 100, 100])
        // The process dies before the app finishes or delivers anything, so the transaction comes back at launch.
        #expect(try await run(.finishBeforeDelivery) == [0, 100, 100])
    }

    @Test("S12b: killed at finish(): what the app did before finishing stays; an app that finishes before it delivers has credited nothing, and gets the coins only at relaunch")
    func s12b() async throws {
        func run(_ fault: AppFault?) async throws -> [Int] {
            let h = try Harness(fault: fault)
            _ = try await h.step(.launch)
            let killed = try await h.step(.purchase, c) { $0.terminate = .beforeFinish }
            let relaunched = try await h.step(.launch)
            return [killed.balance["coins"] ?? 0, relaunched.balance["coins"] ?? 0]
        }
        #expect(try await run(nil) == [100, 100])
        #expect(try await run(.finishBeforeDelivery) == [0, 100])
    }

    // MARK: S13, S14 — restore

    @Test("S13: restore on an account that never bought: no access, 'nothing to restore', neither error nor success")
    func s13() async throws {
        func run(_ fault: AppFault?) async throws -> Observation {
            let h = try Harness(fault: fault)
            _ = try await h.step(.launch)
            return try await h.step(.restore)
        }
        let reference = try await run(nil)
        #expect(reference.access == [] && reference.result == "nothingToRestore")
        #expect(reference.message == "Nothing to restore")
        #expect(try await run(.restoreReportsSuccess).result == "restored")
    }

    @Test("S14: a second device on the same account has both purchases after launch and restore")
    func s14() async throws {
        func run(_ fault: AppFault?) async throws -> [[String]] {
            let h = try Harness(fault: fault)
            _ = try await h.step(.launch)
            _ = try await h.step(.purchase, n)
            let both = try await h.step(.purchase, y).access
            _ = try await h.step(.switchDevice)
            let launched = try await h.step(.launch).access
            let restored = try await h.step(.restore).access
            return [both, launched, restored]
        }
        #expect(try await run(nil) == [["premium", "pro"], ["premium", "pro"], ["premium", "pro"]])
        #expect(try await run(.localStorageEntitlements)[2] == [])
    }

    // MARK: S15 — Family Sharing

    // Apple: https://developer.apple.com/documentation/storekit/supporting-family-sharing-in-your-app
    @Test("S15: the organizer's family-shareable purchase reaches the member as FAMILY_SHARED; leaving revokes it")
    func s15() async throws {
        func run(_ fault: AppFault?) async throws -> [[String]] {
            let accounts = [Account(alias: "org"), Account(alias: "member", familyOrganizer: "org")]
            let h = try Harness(accounts: accounts, account: "member", fault: fault)
            var access: [[String]] = []
            _ = try await h.step(.launch) { $0.account = "org" }
            access.append(try await h.step(.purchase, n) { $0.account = "org" }.access)
            let member = try await h.step(.launch)
            access.append(member.access)
            if fault == nil { #expect(member.transactions.first?.inAppOwnershipType == "FAMILY_SHARED") }
            access.append(try await h.step(.revokeFamilySharing).access)
            access.append(try await h.step(.observe) { $0.account = "org" }.access)
            return access
        }
        #expect(try await run(nil) == [["pro"], ["pro"], [], ["pro"]])
        #expect(try await run(.ignoresFamilySharing)[1] == [])
    }

    // MARK: S16, S17 — expiry

    // Apple: https://developer.apple.com/documentation/storekit/transaction/expirationdate ("nil for non-renewing")
    @Test("S16: a one-week non-renewing subscription grants at +6 days, not at +8, though the transaction is still listed")
    func s16() async throws {
        func run(_ fault: AppFault?) async throws -> [Observation] {
            let h = try Harness(fault: fault)
            _ = try await h.step(.launch)
            return [
                try await h.step(.purchase, nr),
                try await h.step(.advanceTime) { $0.by = ISO8601Duration(days: 6) },
                try await h.step(.advanceTime) { $0.by = ISO8601Duration(days: 2) },
                try await h.step(.relaunch),
            ]
        }
        let reference = try await run(nil)
        #expect(reference.map(\.access) == [["week"], ["week"], [], []])
        #expect(reference[3].entitlements == [nr])
        #expect(try await run(.nonRenewingNeverExpires).map(\.access) == [["week"], ["week"], ["week"], ["week"]])
    }

    @Test("S17: after auto-renew off the subscription expires and the app reverts to the free tier")
    func s17() async throws {
        func run(_ fault: AppFault?) async throws -> [[String]] {
            let h = try Harness(fault: fault)
            _ = try await h.step(.launch)
            return [
                try await h.step(.purchase, m).access,
                try await h.step(.disableAutoRenew, m).access,
                try await h.step(.advanceTime, m) { $0.to = .expiration }.access,
                try await h.step(.relaunch).access,
            ]
        }
        #expect(try await run(nil) == [["plus"], ["plus"], [], []])
        #expect(try await run(.expiredSubscriptionKept) == [["plus"], ["plus"], ["plus"], ["plus"]])
    }
}

/// S18: environment limits read as bugs.
@Suite("Scenario S18: Sandbox and TestFlight renewal limits")
struct EnvironmentLimitScenarioTests {
    let m = ExampleMatrix.monthly

    // Apple: https://developer.apple.com/documentation/storekit/testing-an-auto-renewable-subscription ("renew up to 12 times")
    @Test("S18: on the Sandbox clock a subscription renews 12 times, then expires as an environment limit")
    func sandbox() async throws {
        func run(_ fault: AppFault?) async throws -> [Observation] {
            let h = try Harness(fault: fault, schedule: .sandbox(.default))
            _ = try await h.step(.launch)
            return [
                try await h.step(.purchase, m),
                try await h.step(.renew, m) { $0.count = 12 },
                try await h.step(.advanceTime, m) { $0.to = .expiration },
            ]
        }
        let reference = try await run(nil)
        #expect(reference.map(\.access) == [["plus"], ["plus"], []])
        #expect(reference[1].renewals == 12)
        #expect(reference[2].subscriptionStatus[ExampleMatrix.groupName] == "expired")
        #expect(reference[2].storeMessage?.contains("at most 12 times") == true && reference[2].message == nil)
        #expect(try await run(.computesExpiryFromCalendar)[2].access == ["plus"])
    }

    // Apple: https://developer.apple.com/help/app-store-connect/test-a-beta-version/testing-subscriptions-and-in-app-purchases-in-testflight
    @Test("S18: on the TestFlight clock renewals are one day apart, at most 6")
    func testFlight() async throws {
        let h = try Harness(schedule: .testFlight)
        _ = try await h.step(.launch)
        _ = try await h.step(.purchase, m)
        let renewed = try await h.step(.renew, m) { $0.count = 6 }
        let chain = h.store { $0.transactions }
        #expect(chain.count == 7)
        for (earlier, later) in zip(chain, chain.dropFirst()) {
            #expect(later.purchaseDate - earlier.purchaseDate == 86_400_000)
        }
        #expect(renewed.access == ["plus"] && renewed.renewals == 6)
        let ended = try await h.step(.advanceTime, m) { $0.to = .expiration }
        #expect(ended.access == [] && ended.renewals == 6)
    }

    @Test("S18: renew asking for more renewals than the environment gives stops where the subscription ends; a subscription that does not renew is an error")
    func renewPastTheLimit() async throws {
        let h = try Harness(schedule: .testFlight)
        _ = try await h.step(.launch)
        _ = try await h.step(.purchase, m)
        // Six renewals, then the seventh period ends with auto-renew off: the step stops there and shows it.
        let asked = try await h.step(.renew, m) { $0.count = 13 }
        #expect(asked.access == [] && asked.renewals == 6)
        #expect(asked.subscriptionStatus[ExampleMatrix.groupName] == "expired")
        await #expect(throws: (any Error).self, "nothing left to renew") {
            _ = try await h.session.perform(Step(action: .renew, product: m), index: 9)
        }
    }

    // Apple: https://developer.apple.com/help/app-store-connect/test-in-app-purchases-main/test-in-app-purchases
    @Test("the evidence of a sandbox:5 run predicts the wall time of each renewal: the week's trial 3 minutes, then 5 minutes a month, 1 hour a year")
    func sandboxWallTimes() async throws {
        let h = try Harness(schedule: .sandbox(.default))
        _ = try await h.step(.launch)
        _ = try await h.step(.purchase, m)
        // The introductory free week comes first: its renewal comes after the trial.
        guard case .observed(_, let trial) = try await h.session.perform(Step(action: .renew, product: m), index: 8),
              case .observed(_, let monthly) = try await h.session.perform(Step(action: .renew, product: m), index: 9) else {
            Issue.record("renew was not performed")
            return
        }
        #expect(trial == Int64(3 * 60_000))
        #expect(monthly == Int64(5 * 60_000))
        _ = try await h.step(.purchase, ExampleMatrix.yearly)
        guard case .observed(_, let yearly) = try await h.session.perform(Step(action: .renew, product: ExampleMatrix.yearly), index: 10) else {
            Issue.record("renew was not performed")
            return
        }
        #expect(yearly == Int64(60 * 60_000))
    }

    @Test("TestFlight cannot simulate billing problems: failRenewal is skipped as an environment limit")
    func testFlightBilling() async throws {
        let h = try Harness(schedule: .testFlight)
        _ = try await h.step(.launch)
        _ = try await h.step(.purchase, m)
        let outcome = try await h.session.perform(Step(action: .failRenewal, product: m), index: 2)
        guard case .skipped(let reason, _) = outcome else {
            Issue.record("failRenewal was performed on the TestFlight clock")
            return
        }
        #expect(reason.hasPrefix("environment limit:"))
    }
}
