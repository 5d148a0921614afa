import Testing
@testable import MatrixModel
@testable import MatrixPlanning
@testable import TestSupport

/// `matrix plan`: waits from Apple's clock tables, environment limits, and the wall time over accounts.
@Suite("Run planner")
struct RunPlannerTests {
    static let minute: Int64 = 60_000
    static let hour: Int64 = 3_600_000
    static let day: Int64 = 86_400_000

    func plan(_ steps: [Step], environment: EnvironmentKind, schedule: RenewalSchedule? = nil, store: StoreSettings = .init(),
              timeRate: Int? = nil, introductoryOffer: Bool = false) async -> RunPlan.CasePlan {
        var matrix = ExampleMatrix.matrix(cases: [MatrixCase(id: "c", kind: "renewal", account: "a", store: store, steps: steps)])
        // Regular periods from the first: these tests are about clocks (the trial has a test of its own).
        matrix.catalog = introductoryOffer ? ExampleMatrix.catalog : ExampleMatrix.catalogWithoutIntroductoryOffer
        matrix.catalog.settings.timeRate = timeRate
        return await RunPlanner.plan(matrix, matrixPath: "m.json", environment: environment, schedule: schedule).cases[0]
    }

    func buy(_ product: String) -> [Step] {
        [Step(action: .launch), Step(action: .purchase, product: product)]
    }

    @Test("Sandbox at its default rate: a monthly renewal waits 5 minutes, 12 renewals 60 minutes")
    func sandboxMonthly() async {
        let single = await plan(buy(ExampleMatrix.monthly) + [Step(action: .renew, product: ExampleMatrix.monthly)], environment: .sandbox)
        #expect(single.clock == "sandbox:5")
        #expect(single.steps.map(\.waitMs) == [0, 0, 5 * Self.minute])
        #expect(single.steps[2].wait == "5 minutes")
        #expect(single.steps[2].instruction.hasPrefix("wait 5 minutes for renewal 1 of at most 12 of "))
        let twelve = await plan(buy(ExampleMatrix.monthly) + [Step(action: .renew, product: ExampleMatrix.monthly, count: 12)], environment: .sandbox)
        #expect(twelve.waitMs == 60 * Self.minute)
        #expect(twelve.steps[2].skipped == nil)
    }

    // Apple: https://developer.apple.com/documentation/storekit/product/subscriptionoffer (the introductory offer
    // applies by itself), https://developer.apple.com/help/app-store-connect/test-in-app-purchases-main/test-in-app-purchases
    @Test("a trial's first renewal comes after the trial: the free week waits 3 minutes at Sandbox's default rate, then each month 5 (subscriptionoffer)")
    func trialFirst() async {
        let renewals = await plan(buy(ExampleMatrix.monthly) + [Step(action: .renew, product: ExampleMatrix.monthly, count: 2)],
                                  environment: .sandbox, introductoryOffer: true)
        #expect(renewals.steps.map(\.waitMs) == [0, 0, 3 * Self.minute + 5 * Self.minute])
        #expect(renewals.steps[2].instruction.hasPrefix("wait 8 minutes for renewals 1–2 of at most 12 of "))
    }

    @Test("Sandbox at 60 minutes a month: a yearly renewal waits 12 hours")
    func sandboxYearly() async {
        let yearly = await plan(buy(ExampleMatrix.yearly) + [Step(action: .renew, product: ExampleMatrix.yearly)], environment: .sandbox,
                          schedule: .sandbox(.monthlyRenewalEveryOneHour))
        #expect(yearly.waitMs == 12 * Self.hour)
        #expect(yearly.steps[2].wait == "12 hours")
    }

    @Test("Sandbox at 5 minutes: expiration 5 minutes, billing grace period 2 minutes 30 seconds, billing retry 10 minutes in all")
    func sandboxBillingPoints() async {
        let steps = buy(ExampleMatrix.monthly) + [
            Step(action: .failRenewal, product: ExampleMatrix.monthly, gracePeriod: true),
            Step(action: .advanceTime, product: ExampleMatrix.monthly, to: .expiration),
            Step(action: .advanceTime, product: ExampleMatrix.monthly, to: .gracePeriodEnd),
            Step(action: .advanceTime, product: ExampleMatrix.monthly, to: .billingRetryEnd),
        ]
        let billing = await plan(steps, environment: .sandbox, store: StoreSettings(gracePeriodDays: 16))
        #expect(billing.steps.map(\.waitMs) == [0, 0, 0, 5 * Self.minute, 150_000, 10 * Self.minute - 150_000])
        #expect(billing.appSettings == RunPlan.AppSettings(gracePeriodDays: 16))
        #expect(billing.setup == [
            "Sandbox account a: sign in on the device (Settings > Developer > Sandbox Apple Account)",
            "clear the purchase history first: matrix sandbox clear a",
            "renewal rate: matrix sandbox set a --renewal-rate 5m",
            "check that the app's billing grace period is 16 days in App Store Connect (set for the whole group)",
            "delete the app and install the build again, so that the case starts without app data",
        ])
        #expect(billing.teardown == ["turn Allow Purchases & Renewals back on (Settings > Developer > Sandbox Apple Account > Manage > Account Settings)"])
    }

    @Test("a thirteenth renewal in Sandbox is skipped as an environment limit, and so is the rest of the case")
    func sandboxRenewalLimit() async {
        let steps = buy(ExampleMatrix.monthly) + [
            Step(action: .renew, product: ExampleMatrix.monthly, count: 12),
            Step(action: .renew, product: ExampleMatrix.monthly),
            Step(action: .relaunch),
        ]
        let limited = await plan(steps, environment: .sandbox)
        #expect(limited.steps[2].skipped == nil)
        #expect(limited.steps[3].skipped == "environment limit: sandbox renews a subscription at most 12 times; this step would be renewal 13")
        #expect(limited.steps[4].skipped == "step 3 (renew) was skipped as an environment limit")
        #expect(limited.waitMs == 60 * Self.minute)
    }

    @Test("TestFlight: renewals are daily, at most 6; billing problems are skipped as an environment limit")
    func testFlight() async {
        let renewals = await plan(buy(ExampleMatrix.yearly) + [Step(action: .renew, product: ExampleMatrix.yearly, count: 6),
                                                         Step(action: .renew, product: ExampleMatrix.yearly)], environment: .testflight)
        #expect(renewals.clock == "testflight")
        #expect(renewals.steps[2].waitMs == 6 * Self.day)
        #expect(renewals.steps[3].skipped?.contains("at most 6 times") == true)
        let billing = await plan(buy(ExampleMatrix.monthly) + [Step(action: .failRenewal, product: ExampleMatrix.monthly),
                                                         Step(action: .advanceTime, product: ExampleMatrix.monthly, to: .expiration)],
                           environment: .testflight)
        #expect(billing.steps[2].skipped?.hasPrefix("environment limit: TestFlight purchases cannot fail to renew") == true)
        #expect(billing.steps[3].skipped != nil)
        #expect(billing.waitMs == 0)
    }

    @Test("a case whose store.clock is another environment's is skipped whole; one of the same environment sets its clock")
    func caseClocks() async {
        let steps = buy(ExampleMatrix.monthly) + [Step(action: .renew, product: ExampleMatrix.monthly)]
        let other = await plan(steps, environment: .sandbox, store: StoreSettings(clock: "testflight"))
        #expect(other.skipped == #"environment limit: the case models TestFlight (store.clock "testflight"), not sandbox; run it there"#)
        #expect(other.steps.allSatisfy { $0.skipped != nil && $0.waitMs == 0 })
        let own = await plan(steps, environment: .sandbox, store: StoreSettings(clock: "sandbox:30"))
        #expect(own.clock == "sandbox:30" && own.waitMs == 30 * Self.minute)
        #expect(own.setup.contains("renewal rate: matrix sandbox set a --renewal-rate 30m"))
        #expect(!own.setup.contains("renewal rate: matrix sandbox set a --renewal-rate 5m"))
        #expect(other.setup.isEmpty && other.group == nil && other.lane == nil)
    }

    @Test("Xcode uses the catalog's _timeRate unless --clock says otherwise")
    func xcodeRates() async {
        let steps = buy(ExampleMatrix.monthly) + [Step(action: .renew, product: ExampleMatrix.monthly)]
        #expect(await plan(steps, environment: .xcode, timeRate: 13).waitMs == 5 * Self.minute)
        #expect(await plan(steps, environment: .xcode, schedule: .xcode(.oneRenewalEveryTwoSeconds), timeRate: 13).waitMs == 2000)
        #expect(await plan(steps, environment: .xcode).clock == "xcode:0")
    }

    @Test("advanceTime by waits real time in every environment")
    func realTimeDurations() async {
        let steps = buy(ExampleMatrix.season) + [Step(action: .advanceTime, by: ISO8601Duration(days: 2))]
        for environment in RunPlanner.environments {
            let planned = await plan(steps, environment: environment)
            #expect(planned.waitMs == 2 * Self.day)
            #expect(planned.steps.map(\.realTime) == [false, false, true])
        }
    }

    @Test("totals in parallel are also given without the cases that wait days of real time, which no clock shortens")
    func parallelWithoutSlowCases() async {
        let slow = MatrixCase(id: "season", kind: "non-renewing", account: "one",
                              steps: buy(ExampleMatrix.season) + [Step(action: .advanceTime, by: ISO8601Duration(days: 30))])
        let renew = { (id: String) in
            MatrixCase(id: id, kind: "renewal", account: id,
                       steps: self.buy(ExampleMatrix.monthly) + [Step(action: .renew, product: ExampleMatrix.monthly, count: 2)])
        }
        var matrix = ExampleMatrix.matrix(accounts: ["one", "two", "three"].map { Account(alias: $0) }, cases: [slow, renew("two"), renew("three")])
        matrix.catalog = ExampleMatrix.catalogWithoutIntroductoryOffer
        let plan = await RunPlanner.plan(matrix, matrixPath: "m.json", environment: .sandbox, accounts: 2)
        #expect(plan.parallelMs == 30 * Self.day)
        #expect(plan.parallelMs(excluding: ["season"]) == 10 * Self.minute)
        #expect(plan.text.contains("over 2 accounts in parallel: 30 days\n  without the 1 case that waits days of real time: 10 minutes"))
    }

    @Test("totals: one account waits the sum; N accounts wait the longest lane")
    func totals() async {
        let renewCase = { (id: String, count: Int) in
            MatrixCase(id: id, kind: "renewal", account: id,
                       steps: [Step(action: .launch), Step(action: .purchase, product: ExampleMatrix.monthly),
                               Step(action: .renew, product: ExampleMatrix.monthly, count: count)])
        }
        var matrix = ExampleMatrix.matrix(accounts: ["one", "two", "three", "four"].map { Account(alias: $0) },
                                          cases: [renewCase("one", 1), renewCase("three", 3), renewCase("two", 2), renewCase("four", 4)])
        matrix.catalog = ExampleMatrix.catalogWithoutIntroductoryOffer
        let plan = await RunPlanner.plan(matrix, matrixPath: "m.json", environment: .sandbox, accounts: 2)
        #expect(plan.sequentialMs == 50 * Self.minute)
        #expect(plan.parallelMs == 25 * Self.minute)
        #expect(plan.lanes.map(\.cases) == [["four", "one"], ["three", "two"]])
        #expect(plan.text.contains("one after another: 50 minutes of waiting"))
        #expect(plan.text.contains("over 2 accounts in parallel: 25 minutes"))
    }

    @Test("TestFlight: the plan counts the fresh Apple Accounts its cases need, one per case and alias (a TestFlight purchase history cannot be cleared)")
    func testFlightAccounts() async {
        let cases = ["one", "two", "three"].map { MatrixCase(id: $0, kind: "fresh-purchase", account: $0, steps: buy(ExampleMatrix.pro)) }
        let matrix = ExampleMatrix.matrix(accounts: ["one", "two", "three"].map { Account(alias: $0) }, cases: cases)
        let plan = await RunPlanner.plan(matrix, matrixPath: "m.json", environment: .testflight, accounts: 2)
        #expect(plan.cases.allSatisfy { $0.dedicated != nil })
        #expect(plan.text.contains("Apple Accounts: 3 that have not bought this app's products in TestFlight"))
        let sandbox = await RunPlanner.plan(matrix, matrixPath: "m.json", environment: .sandbox, accounts: 2)
        #expect(!sandbox.text.contains("Apple Accounts: "))
        // Three cases of one alias still need three accounts: none may have bought in TestFlight before.
        let shared = ExampleMatrix.matrix(accounts: [Account(alias: "newbie")],
                                          cases: ["one", "two", "three"].map { MatrixCase(id: $0, kind: "fresh-purchase", account: "newbie", steps: buy(ExampleMatrix.pro)) })
        let sharedPlan = await RunPlanner.plan(shared, matrixPath: "m.json", environment: .testflight, accounts: 1)
        #expect(sharedPlan.text.contains("Apple Accounts: 3 that have not bought this app's products in TestFlight"), "\(sharedPlan.text)")
    }

    @Test("what a person cannot do in Sandbox is skipped as the guided run skips it; Xcode's Transaction Manager can")
    func personLimits() async {
        let killed = buy(ExampleMatrix.coins).dropLast() + [Step(action: .purchase, product: ExampleMatrix.coins, terminate: .beforeDelivery),
                                                            Step(action: .launch)]
        let sandbox = await plan(Array(killed), environment: .sandbox)
        #expect(sandbox.steps[1].skipped == "environment limit: a person cannot terminate the app at a precise point of its transaction handling")
        #expect(sandbox.steps[2].skipped == "step 1 (purchase) was skipped as an environment limit")
        let expire = buy(ExampleMatrix.monthly) + [Step(action: .expire, product: ExampleMatrix.monthly)]
        #expect(await plan(expire, environment: .testflight).steps[2].skipped?.hasPrefix("environment limit: testflight cannot end a subscription") == true)
        #expect(await plan(expire, environment: .xcode).steps.allSatisfy { $0.skipped == nil })
        #expect(await plan(Array(killed), environment: .xcode).steps.allSatisfy { $0.skipped == nil })
    }
}
