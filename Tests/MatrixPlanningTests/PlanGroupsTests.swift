import Testing
@testable import MatrixModel
@testable import MatrixPlanning
@testable import TestSupport

/// `matrix plan`: app-wide settings in groups, what Sandbox can and cannot do (shared with the guided run), and
/// Xcode's real-time default.
@Suite("Plan groups and Sandbox capabilities")
struct PlanGroupsTests {
    static let minute: Int64 = 60_000
    static let propagation = "wait until the change reaches Sandbox: App Store Connect changes can take up to 1 hour"

    func subscribe(_ id: String, store: StoreSettings = .init(), then steps: [Step]) -> MatrixCase {
        MatrixCase(id: id, kind: "renewal", account: id, store: store,
                   steps: [Step(action: .launch), Step(action: .purchase, product: ExampleMatrix.monthly)] + steps)
    }

    func plan(_ cases: [MatrixCase], environment: EnvironmentKind = .sandbox, lanes: Int = 1) async -> RunPlan {
        let aliases = Set(cases.flatMap { [$0.account] + $0.steps.compactMap(\.account) })
        // Regular periods from the first: these tests are about groups and clocks, not the introductory offer.
        var matrix = ExampleMatrix.matrix(accounts: aliases.sorted().map { Account(alias: $0) }, cases: cases)
        matrix.catalog = ExampleMatrix.catalogWithoutIntroductoryOffer
        return await RunPlanner.plan(matrix, matrixPath: "m.json", environment: environment, accounts: lanes)
    }

    @Test("grace on and grace off cannot run at once: two groups one after another, each as long as its longest lane")
    func gracePeriodGroups() async {
        let monthly = ExampleMatrix.monthly
        let cases = [
            subscribe("grace", store: StoreSettings(gracePeriodDays: 16), then: [
                Step(action: .failRenewal, product: monthly), Step(action: .advanceTime, product: monthly, to: .expiration),
                Step(action: .advanceTime, product: monthly, to: .gracePeriodEnd)]),       // 5 + 2.5 minutes
            subscribe("off", store: StoreSettings(gracePeriodDays: 0), then: [
                Step(action: .failRenewal, product: monthly), Step(action: .advanceTime, product: monthly, to: .expiration),
                Step(action: .advanceTime, product: monthly, to: .billingRetryEnd)]),      // 5 + 10 minutes
            subscribe("long", then: [Step(action: .renew, product: monthly, count: 4)]),   // 20 minutes, any group
            subscribe("short", then: [Step(action: .renew, product: monthly)]),            // 5 minutes, any group
        ]
        let planned = await plan(cases, lanes: 2)
        #expect(planned.groups.map(\.appSettings) == [RunPlan.AppSettings(gracePeriodDays: 16), RunPlan.AppSettings(gracePeriodDays: 0)])
        #expect(planned.groups.map(\.settings) == [
            ["set the billing grace period to 16 days in App Store Connect", Self.propagation],
            ["turn the billing grace period off in App Store Connect", Self.propagation],
        ])
        #expect(planned.groups.map { $0.lanes.map(\.cases) } == [[["grace"], ["short"]], [["off"], ["long"]]])
        #expect(planned.groups.map(\.parallelMs) == [7 * Self.minute + 30_000, 20 * Self.minute])
        #expect(planned.parallelMs == 27 * Self.minute + 30_000)
        #expect(planned.sequentialMs == 47 * Self.minute + 30_000)
        #expect(planned.cases.map(\.group) == [1, 2, 2, 1] && planned.cases.map(\.lane) == [1, 1, 2, 2])
        let text = planned.text
        #expect(text.contains("group 1 of 2 · billing grace period 16 days\n      set: set the billing grace period to 16 days in App Store Connect\n"))
        #expect(text.contains("over 2 accounts in parallel: 27 minutes 30 seconds (the groups one after another, each as long as its longest lane)"))
        #expect(text.contains("  group 2 (billing grace period off): 20 minutes — lane 1: 1 case, 15 minutes; lane 2: 1 case, 20 minutes"))
        #expect(text.contains("plus up to 1 hour after each of the 2 App Store Connect changes before Sandbox sees it (not included above)"))
    }

    @Test("a price increase reaches every subscriber: its case runs alone, after the others, with its own settings")
    func priceIncreaseRunsAlone() async {
        let monthly = ExampleMatrix.monthly
        let increase = subscribe("increase", then: [Step(action: .requestPriceIncrease, product: monthly, price: "5.99"),
                                                    Step(action: .consentToPriceIncrease, product: monthly)])
        let planned = await plan([increase, subscribe("other", then: [Step(action: .renew, product: monthly)])], lanes: 2)
        #expect(planned.groups.map(\.cases) == [["other"], ["increase"]])
        #expect(planned.groups[1].settings == [
            "run this case alone: a price increase in App Store Connect reaches every subscriber of \(monthly)",
            "check that \(monthly) has its original price in App Store Connect",
            Self.propagation,
        ])
        #expect(planned.cases[0].teardown == ["set the price of \(monthly) back in App Store Connect"])
        #expect(planned.cases[0].steps[2].instruction == "raise the price of \(monthly) to 5.99 in App Store Connect by enough that subscribers "
            + "must consent (it can take up to 1 hour to reach Sandbox)")
        #expect(await plan([increase], environment: .xcode).groups.map(\.appSettings) == [RunPlan.AppSettings()])
    }

    @Test("cases that name the same alias share its account, so they run on one lane; each lane lists the aliases it shares")
    func sameAliasSameLane() async {
        let monthly = ExampleMatrix.monthly
        let first = MatrixCase(id: "first", kind: "renewal", account: "shared",
                               steps: [Step(action: .launch), Step(action: .purchase, product: monthly), Step(action: .renew, product: monthly, count: 2)])
        let second = MatrixCase(id: "second", kind: "renewal", account: "shared",
                                steps: [Step(action: .launch), Step(action: .purchase, product: monthly), Step(action: .renew, product: monthly)])
        let planned = await plan([first, second, subscribe("alone", then: [Step(action: .renew, product: monthly, count: 3)])], lanes: 2)
        #expect(planned.lanes.map(\.cases) == [["first", "second"], ["alone"]])
        #expect(planned.lanes.map(\.sharedAliases) == [["shared"], ["alone"]])
        #expect(planned.parallelMs == 15 * Self.minute)
        #expect(planned.text.contains("  lane 1 shares one account: shared\n"))
    }

    @Test("refunds, declined refunds and failed purchases are done as Apple's Sandbox pages say; TestFlight's own accounts cannot fail")
    func sandboxCapabilities() async {
        let pro = ExampleMatrix.pro
        let steps = [Step(action: .launch), Step(action: .purchase, product: pro), Step(action: .declineRefund, product: pro), Step(action: .refund, product: pro),
                     Step(action: .purchase, product: ExampleMatrix.coins, outcome: .failed)]
        let sandbox = await plan([MatrixCase(id: "c", kind: "refund", account: "a", steps: steps)]).cases[0]
        #expect(sandbox.steps.map(\.instruction) == [
            "launch the app",
            "buy \(pro)",
            "request a refund of \(pro) in the app's refund request sheet: Issue > Other, type DECLINE, tap Request Refund (the App Store declines it)",
            "refund \(pro): in the app's refund request sheet choose any reason and submit (the App Store approves it)",
            "turn off Allow Purchases & Renewals (Settings > Developer > Sandbox Apple Account > Manage > Account Settings), "
                + "buy \(ExampleMatrix.coins) and let the purchase fail, then turn it back on",
        ])
        #expect(sandbox.steps.allSatisfy { $0.skipped == nil })
        let testFlight = await plan([MatrixCase(id: "c", kind: "refund", account: "a", steps: steps)], environment: .testflight).cases[0]
        #expect(testFlight.steps[4].skipped == "environment limit: a TestFlight purchase with the tester's own Apple Account cannot be made "
            + "to fail: turning off Allow Purchases & Renewals needs a Sandbox Apple Account "
            + "(https://developer.apple.com/documentation/storekit/testing-failing-subscription-renewals-and-in-app-purchases)")
        let planned = await plan([MatrixCase(id: "c", kind: "refund", account: "a", steps: steps)])
        #expect(planned.howTo.map(\.capability) == ["clearPurchaseHistory", "refund", "declineRefund", "billingIssue"])
        #expect(planned.howTo[1].source == "https://developer.apple.com/documentation/storekit/testing-refund-requests")
    }

    @Test("answering Ask to Buy and reversing a refund are skipped with Apple's pages; the guided run applies the same limits")
    func documentedLimits() async {
        let approve = Step(action: .approveAskToBuy, product: ExampleMatrix.pro)
        let reason = GuidedLimits.reason(for: approve, environment: .sandbox, schedule: .sandbox(.default), renewalsSoFar: 0)
        #expect(reason == "sandbox cannot answer an Ask to Buy request: Sandbox only simulates the request "
            + "(https://developer.apple.com/documentation/storekit/product/purchaseoption/simulatesasktobuyinsandbox(_:)); Apple documents "
            + "answering it in StoreKit Testing in Xcode only (https://developer.apple.com/documentation/storekittest/sktestsession/asktobuyenabled)")
        let pending = MatrixCase(id: "pending/pro", kind: "pending", account: "a", store: StoreSettings(askToBuy: true),
                                 steps: [Step(action: .launch), Step(action: .purchase, product: ExampleMatrix.pro, outcome: .pending), approve])
        let item = await plan([pending]).cases[0]
        #expect(item.steps[1].instruction == "buy \(ExampleMatrix.pro) (simulatesAskToBuyInSandbox): it waits for approval")
        #expect(item.steps[2].skipped == "environment limit: " + (reason ?? ""))
        let reverse = GuidedLimits.reason(for: Step(action: .reverseRefund, product: ExampleMatrix.pro), environment: .testflight,
                                          schedule: .testFlight, renewalsSoFar: 0)
        #expect(reverse == "testflight cannot reverse a refund: Apple's refund testing covers approved, declined and prorated refunds only "
            + "(https://developer.apple.com/documentation/storekit/testing-refund-requests)")
        #expect(GuidedLimits.reason(for: Step(action: .purchase, product: ExampleMatrix.coins, outcome: .failed), environment: .sandbox,
                                    schedule: .sandbox(.default), renewalsSoFar: 0) == nil)
        // A product's availability in App Store Connect is every customer's; there is no Sandbox-only switch.
        let offSale = GuidedLimits.reason(for: Step(action: .removeFromSale, product: ExampleMatrix.monthly), environment: .sandbox,
                                          schedule: .sandbox(.default), renewalsSoFar: 0)
        #expect(offSale == "sandbox has no Sandbox-only way to take a product off sale: App Store Connect's availability applies to every customer")
        // A tester cannot make one StoreKit call fail on demand; StoreKit Testing's setSimulatedError can.
        let failing = Step(action: .purchase, product: ExampleMatrix.pro, failNext: FailNext(call: .purchase, error: "networkError"))
        #expect(GuidedLimits.reason(for: failing, environment: .testflight, schedule: .testFlight, renewalsSoFar: 0)
            == "testflight cannot make one Product.purchase(options:) call fail on demand; StoreKit Testing in Xcode (setSimulatedError) "
            + "and the embedded environments can")
    }

    @Test("Xcode without a time rate says plainly that it is real time and names two faster clocks; a chosen rate says nothing")
    func xcodeRealTimeNote() async {
        let expected = "the catalog sets no _timeRate and --clock was not given: StoreKit Testing in Xcode's default is real time, so a "
            + "monthly renewal waits a month. Plan with a faster rate, e.g. --clock xcode:13 (monthly renewal every 5 minutes, like "
            + "Sandbox's default) or --clock xcode:1005 (every period renews in 2 seconds, Xcode's fastest), and set the same time rate "
            + "in the StoreKit configuration (SKTestSession.timeRate)"
        let cases = [subscribe("renew", then: [Step(action: .renew, product: ExampleMatrix.monthly)])]
        let defaulted = await plan(cases, environment: .xcode)
        #expect(defaulted.clockNote == expected)
        #expect(defaulted.text.contains("\nnote: \(expected)\n"))
        #expect(defaulted.text.contains("one after another: 31 days of waiting (in real time: see the note at the top)"))
        #expect(RunPlanner.clockNote(environment: .xcode, timeRate: 0)?.hasPrefix("the catalog's _timeRate is 0 and --clock was not given") == true)
        #expect(RunPlanner.clockNote(environment: .xcode, timeRate: 13) == nil)
        #expect(RunPlanner.clockNote(environment: .sandbox, timeRate: nil) == nil)
        var plain = ExampleMatrix.matrix(accounts: [Account(alias: "renew")], cases: cases)
        plain.catalog = ExampleMatrix.catalogWithoutIntroductoryOffer
        let chosen = await RunPlanner.plan(plain, matrixPath: "m.json", environment: .xcode, schedule: .xcode(.monthlyRenewalEveryFiveMinutes))
        #expect(chosen.clockNote == nil && chosen.sequentialMs == 5 * Self.minute)
    }
}
