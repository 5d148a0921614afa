import Testing
import AppStoreModels
import MatrixEngine
import MatrixJSON
import MatrixModel
import StoreSimulator
import TestSupport

/// Transaction fields, `Transaction.updates`, `currentEntitlements`, `Transaction.all` and purchase outcomes,
/// each checked against the Apple page it follows.
@Suite("Transaction rules")
struct TransactionRulesTests {
    let pro = ExampleMatrix.pro
    let monthly = ExampleMatrix.monthly
    let coins = ExampleMatrix.coins

    // Apple: https://developer.apple.com/documentation/appstoreserverapi/jwstransactiondecodedpayload
    @Test("JWSTransactionDecodedPayload fields: ids, dates in ms, type, ownership, reason, price in milliunits, storefront currency")
    func transactionFields() async throws {
        let h = try Harness(store: StoreSettings(storefront: "GBR"))
        _ = try await h.step(.launch)
        // The yearly plan has no introductory offer: the first period is a full one at the full price.
        let bought = try await h.step(.purchase, ExampleMatrix.yearly)
        let id = try #require(bought.transactionIds.first)
        let transaction = try #require(h.store { $0.transaction(id) })
        let payload = transaction.payload(bundleId: "com.example.storekitmatrix", environment: "Sandbox", signedDate: h.store { $0.now })
        #expect(payload.transactionId == id && payload.originalTransactionId == id)
        #expect(payload.type == "Auto-Renewable Subscription")
        #expect(payload.inAppOwnershipType == "PURCHASED")
        #expect(payload.transactionReason == "PURCHASE")
        #expect(payload.price == 39990)
        #expect(payload.currency == "GBP" && payload.storefront == "GBR" && payload.storefrontId == "143444")
        #expect(payload.purchaseDate?.milliseconds == StoreConfiguration.defaultStartTime)
        // 2026-01-01T12:00:00Z plus one calendar year is 2027-01-01T12:00:00Z.
        #expect(payload.expiresDate?.milliseconds == 1_798_804_800_000)
        #expect(payload.subscriptionGroupIdentifier == ExampleMatrix.groupID)
        #expect(payload.quantity == 1)
        #expect(payload.webOrderLineItemId != nil)
    }

    // Apple: https://developer.apple.com/documentation/appstoreserverapi/weborderlineitemid
    @Test("each subscription period gets a new webOrderLineItemId; the originalTransactionId and originalPurchaseDate stay")
    func renewalIdentifiers() async throws {
        let h = try Harness()
        _ = try await h.step(.launch)
        _ = try await h.step(.purchase, monthly)
        _ = try await h.step(.renew, monthly) { $0.count = 2 }
        let chain = h.store { $0.transactions }
        #expect(chain.count == 3)
        #expect(Set(chain.compactMap(\.webOrderLineItemId)).count == 3)
        #expect(Set(chain.map(\.originalTransactionId)) == [chain[0].transactionId])
        #expect(Set(chain.map(\.originalPurchaseDate)) == [chain[0].purchaseDate])
        #expect(chain.map(\.transactionReason) == ["PURCHASE", "RENEWAL", "RENEWAL"])
        #expect(chain[1].purchaseDate == chain[0].expiresDate && chain[2].purchaseDate == chain[1].expiresDate)
    }

    @Test("a consumable bought in quantity 3 is one transaction of quantity 3, priced 3 × displayPrice, credited 300")
    func quantity() async throws {
        let h = try Harness()
        _ = try await h.step(.launch)
        let bought = try await h.step(.purchase, coins) { $0.quantity = 3 }
        #expect(bought.balance["coins"] == 300)
        let transaction = try #require(h.store { $0.transactions.first })
        #expect(transaction.quantity == 3 && transaction.price == 2970)
    }

    // Apple: https://developer.apple.com/documentation/storekit/transaction/updates
    @Test("updates reach the app only while it runs: a purchase made outside the app while it is closed arrives at launch")
    func updatesOnlyWhileRunning() async throws {
        let h = try Harness()
        _ = try await h.step(.launch)
        _ = try await h.step(.quit)
        let outside = try await h.step(.purchaseOutsideApp, coins)
        #expect(outside.balance["coins"] == nil, "the closed app credited nothing")
        #expect(h.store { $0.unfinishedTransactions(account: "a").count } == 1)
        let launched = try await h.step(.launch)
        #expect(launched.balance["coins"] == 100)
        #expect(h.store { $0.unfinishedTransactions(account: "a").isEmpty })
    }

    @Test("updates do not re-emit a purchase() result on the device that made it; other devices of the account get it")
    func updatesDoNotReemitPurchaseResult() async throws {
        let h = try Harness()
        _ = try await h.step(.launch)
        let bought = try await h.step(.purchase, pro)
        let id = try #require(bought.transactionIds.first)
        let entries = h.store { $0.updateLog.filter { $0.transactionId == id } }
        #expect(entries.count == 1)
        #expect(entries.first?.excludingDevice == h.session.device(for: "a").session.deviceName)
    }

    @Test("unfinished transactions are delivered again at every launch until finished")
    func unfinishedReplayed() async throws {
        let h = try Harness(fault: .consumablesNeverFinished)
        _ = try await h.step(.launch)
        #expect(try await h.step(.purchase, coins).balance["coins"] == 100)
        #expect(try await h.step(.relaunch).balance["coins"] == 200)
        #expect(try await h.step(.relaunch).balance["coins"] == 300)
        #expect(h.store { $0.unfinishedTransactions(account: "a").count } == 1)
    }

    // Apple: https://developer.apple.com/documentation/storekit/transaction/currententitlements
    @Test("currentEntitlements: non-consumables, active subscriptions, non-renewing; never consumables, revoked or upgraded")
    func currentEntitlements() async throws {
        let h = try Harness()
        _ = try await h.step(.launch)
        _ = try await h.step(.purchase, coins)
        _ = try await h.step(.purchase, pro)
        _ = try await h.step(.purchase, ExampleMatrix.season)
        _ = try await h.step(.purchase, monthly)
        var observed = try await h.step(.observe)
        #expect(observed.entitlements == [ExampleMatrix.monthly, pro, ExampleMatrix.season].sorted())
        _ = try await h.step(.purchase, ExampleMatrix.yearly)
        observed = try await h.step(.refund, pro)
        #expect(observed.entitlements == [ExampleMatrix.yearly, ExampleMatrix.season].sorted())
        #expect(h.store { $0.transactions.contains { $0.productId == monthly && $0.isUpgraded } })
    }

    @Test("currentEntitlements include a subscription in a billing grace period and exclude one in billing retry")
    func entitlementsGraceAndRetry() async throws {
        let grace = try Harness(store: StoreSettings(gracePeriodDays: 3))
        _ = try await grace.step(.launch)
        _ = try await grace.step(.purchase, monthly)
        _ = try await grace.step(.failRenewal, monthly)
        #expect(try await grace.step(.advanceTime, monthly) { $0.to = .expiration }.entitlements == [monthly])
        #expect(try await grace.step(.advanceTime, monthly) { $0.to = .gracePeriodEnd }.entitlements == [])
    }

    @Test("lookups by account and product agree with a scan of every transaction, across accounts, renewals, upgrades, refunds and sharing")
    func indexedLookupsAgreeWithScans() async throws {
        let accounts = [Account(alias: "org"), Account(alias: "member", familyOrganizer: "org")]
        let h = try Harness(accounts: accounts, account: "org")
        _ = try await h.step(.launch)
        _ = try await h.step(.purchase, monthly)
        _ = try await h.step(.renew, monthly) { $0.count = 3 }
        _ = try await h.step(.purchase, coins)
        _ = try await h.step(.purchase, pro)
        _ = try await h.step(.purchase, ExampleMatrix.yearly)
        _ = try await h.step(.refund, pro)
        _ = try await h.step(.renew, ExampleMatrix.yearly)
        _ = try await h.step(.purchase, coins) { $0.terminate = .beforeDelivery }
        _ = try await h.step(.launch) { $0.account = "member" }
        let all = h.store { $0.transactions }
        #expect(all.contains { $0.account == "member" }, "the member received shared transactions")
        for account in ["org", "member", "nobody"] {
            #expect(h.store { $0.transactions(account: account).map(\.transactionId) }
                == all.filter { $0.account == account }.map(\.transactionId))
            #expect(h.store { $0.renewalCount(account: account) }
                == all.filter { $0.account == account && $0.transactionReason == "RENEWAL" }.count)
            #expect(h.store { $0.unfinishedTransactions(account: account).map(\.transactionId) }
                == all.filter { $0.account == account && !$0.finished }.map(\.transactionId))
            for product in [monthly, coins, pro, ExampleMatrix.yearly, "unknown"] {
                #expect(h.store { $0.lastTransaction(account: account, productID: product)?.transactionId }
                    == all.last { $0.account == account && $0.productId == product }?.transactionId)
                #expect(h.store { $0.lastTransaction(account: account, productID: product) { !$0.isRevoked }?.transactionId }
                    == all.last { $0.account == account && $0.productId == product && !$0.isRevoked }?.transactionId)
            }
        }
        #expect(h.store { $0.renewalCount(account: "org") } == 4)
        #expect(!h.store { $0.unfinishedTransactions(account: "org").isEmpty }, "the coins the app was killed before delivering")
    }

    @Test("the clock stops at 9999-12-31T23:59:59.999Z: a step that would pass it errors instead of signing dates no verifier accepts")
    func clockEndsAtYear9999() async throws {
        let h = try Harness()
        _ = try await h.step(.launch)
        _ = try await h.step(.purchase, ExampleMatrix.yearly)
        await #expect(throws: AdapterError.self) { _ = try await h.step(.renew, ExampleMatrix.yearly) { $0.count = 8_000 } }
        #expect(h.store { $0.now } <= AppStoreSimulator.latestTime)
        #expect(throws: StoreError.self) { try h.store { try $0.advance(to: AppStoreSimulator.latestTime + 1) } }
        try h.store { try $0.advance(to: AppStoreSimulator.latestTime) }
        #expect(Timestamp.iso8601(milliseconds: h.store { $0.now }) == "9999-12-31T23:59:59.999Z")
    }

    // Apple: https://developer.apple.com/documentation/storekit/transaction/all
    @Test("Transaction.all keeps unfinished consumables and refunded ones, drops finished ones unless SKIncludeConsumableInAppPurchaseHistory")
    func transactionAll() async throws {
        let h = try Harness()
        _ = try await h.step(.launch)
        _ = try await h.step(.purchase, coins) { $0.terminate = .beforeDelivery }
        #expect(h.store { $0.allTransactions(account: "a").map(\.productId) } == [coins], "unfinished consumable listed")
        _ = try await h.step(.launch)
        #expect(h.store { $0.allTransactions(account: "a").isEmpty }, "finished consumable gone")
        _ = try await h.step(.refund, coins)
        #expect(h.store { $0.allTransactions(account: "a").map(\.productId) } == [coins], "refunded consumable listed again")

        var configuration = h.store { $0.configuration }
        configuration.includeConsumableInAppPurchaseHistory = true
        let history = AppStoreSimulator(catalog: ExampleMatrix.catalog, configuration: configuration)
        _ = try history.purchase(account: "a", productID: coins, device: "d")
        history.finish(try #require(history.transactions.first?.transactionId))
        #expect(history.allTransactions(account: "a").count == 1)
    }

    @Test("Transaction.latest(for:) is the newest transaction of the product, renewals included")
    func latestFor() async throws {
        let h = try Harness()
        _ = try await h.step(.launch)
        _ = try await h.step(.purchase, monthly)
        _ = try await h.step(.renew, monthly) { $0.count = 2 }
        let latest = try #require(h.store { $0.latestTransaction(account: "a", productID: monthly) })
        #expect(latest.transactionId == h.store { $0.transactions.last?.transactionId })
        #expect(latest.transactionReason == "RENEWAL")
    }

    // Apple: https://developer.apple.com/documentation/storekit/product/purchaseresult
    @Test("a failed purchase throws a StoreKit error, creates nothing and sends nothing")
    func failedPurchase() async throws {
        let h = try Harness()
        _ = try await h.step(.launch)
        let failed = try await h.step(.purchase, pro) { $0.outcome = .failed }
        #expect(failed.result == "failed" && failed.access == [] && failed.notifications == [])
        #expect(h.store { $0.transactions.isEmpty })
    }

    // Apple: https://developer.apple.com/documentation/storekittest/sktestsession/interruptedpurchasesenabled
    @Test("an interrupted purchase fails until the customer resolves the issue; then it arrives through updates")
    func interruptedPurchase() async throws {
        let h = try Harness()
        _ = try await h.step(.launch)
        let interrupted = try await h.step(.purchase, pro) { $0.outcome = .interrupted }
        #expect(interrupted.result == "failed" && interrupted.access == [])
        #expect(h.store { $0.transactions.isEmpty })
        let resolved = try await h.step(.resolveIssue, pro)
        #expect(resolved.access == ["pro"])
        #expect(resolved.notifications == ["ONE_TIME_CHARGE"])
    }

    // Apple: https://developer.apple.com/documentation/appstoreservernotifications/notificationtype
    @Test("no notification for a cancelled sheet, a pending or declined Ask to Buy, or a restore")
    func silentEvents() async throws {
        let h = try Harness(store: StoreSettings(askToBuy: true))
        _ = try await h.step(.launch)
        #expect(try await h.step(.purchase, pro) { $0.outcome = .userCancelled }.notifications == [])
        #expect(try await h.step(.purchase, pro).notifications == [])
        #expect(try await h.step(.declineAskToBuy, pro).notifications == [])
        #expect(try await h.step(.restore).notifications == [])
        #expect(h.store { $0.notifications.isEmpty })
    }

    @Test("a second purchase of an owned non-consumable returns the existing transaction and charges nothing")
    func repurchaseNonConsumable() async throws {
        let h = try Harness()
        _ = try await h.step(.launch)
        let first = try await h.step(.purchase, pro)
        let second = try await h.step(.purchase, pro)
        #expect(second.result == "success")
        #expect(first.transactionIds == second.transactionIds)
        #expect(second.notifications == [])
        #expect(h.store { $0.transactions.count } == 1)
    }
}
