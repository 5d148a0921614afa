import MatrixComparison
import MatrixModel
import TestSupport
import Testing

@Suite("Comparing runs")
struct ComparatorTests {
    typealias F = CompareFixture

    /// The only difference of a comparison, or an issue.
    func onlyDifference(_ runs: [ComparedRun], sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> Comparison.Difference {
        let comparison = Comparator.compare(runs)
        try #require(comparison.differences.count == 1, "differences: \(comparison.differences)", sourceLocation: sourceLocation)
        return comparison.differences[0]
    }

    @Test("A step that fails or errors in local contradicts StoreKit, whatever the other runs say", arguments: [Verdict.fail, .error])
    func failsInLocal(verdict: Verdict) throws {
        let difference = try onlyDifference(F.runs("refund/pro", [("local", verdict, verdict == .fail ? ["pro"] : nil),
                                                                  ("exec", .pass, []), ("sandbox", .fail, ["pro"])]))
        #expect(difference.classification == .expectationContradictsStoreKit)
        #expect(difference.explanation.hasPrefix(verdict == .fail ? "fails in local" : "errors in local"))
    }

    @Test("A step that fails in local and every other run is still reported: the expectation is wrong")
    func failsEverywhereIncludingLocal() throws {
        let difference = try onlyDifference(F.runs("refund/pro", [("local", .fail, ["pro"]), ("sandbox", .fail, ["pro"])]))
        #expect(difference.classification == .expectationContradictsStoreKit)
    }

    @Test("Passes in local, fails in an app environment: app logic", arguments: ["exec", "xcode", "my-driver"])
    func appLogic(environment: String) throws {
        let difference = try onlyDifference(F.runs("refund/pro", [("local", .pass, []), (environment, .fail, ["pro"])]))
        #expect(difference.classification == .appLogic)
        #expect(difference.explanation.hasPrefix("passes in local, fails in \(environment)"))
        #expect(difference.cells.map(\.verdict) == [.pass, .fail])
        #expect(difference.cells.map(\.access) == [[], ["pro"]])
    }

    @Test("App logic wins over a later failure: local passes, exec and sandbox fail")
    func appLogicBeforeSandbox() throws {
        let difference = try onlyDifference(F.runs("refund/pro", [("local", .pass, []), ("exec", .fail, ["pro"]),
                                                                  ("sandbox", .fail, ["pro"])]))
        #expect(difference.classification == .appLogic)
    }

    @Test("Passes in an app environment, fails in sandbox: product setup", arguments: ["exec", "xcode"])
    func productSetup(passing: String) throws {
        let difference = try onlyDifference(F.runs("upgrade/premium", [(passing, .pass, ["premium"]), ("sandbox", .fail, [])]))
        #expect(difference.classification == .productSetup)
        #expect(difference.explanation.hasPrefix("passes in \(passing), fails in sandbox"))
        let withLocal = try onlyDifference(F.runs("upgrade/premium", [("local", .pass, ["premium"]), (passing, .pass, ["premium"]),
                                                                      ("sandbox", .fail, [])]))
        #expect(withLocal.classification == .productSetup)
        #expect(withLocal.explanation.hasPrefix("passes in local and \(passing), fails in sandbox"))
    }

    @Test("A pass in an app environment that observed none of the step is no evidence: not product setup, and its access shows as unobserved")
    func unjudgedAppPass() throws {
        var runs = F.runs("upgrade/premium", [("local", .pass, ["premium"]), ("xcode", .pass, []), ("sandbox", .fail, [])])
        // The xcode driver observed nothing of the step's expectation (access).
        runs[1].records[0].expected = Expectation(access: ["premium"])
        runs[1].records[0].observed?.notObserved = ["access"]
        #expect(runs[1].records[0].passedWithNothingObserved)
        let difference = try onlyDifference(runs)
        #expect(difference.classification == .inconclusive)
        #expect(difference.explanation.hasPrefix("passes in local, fails in sandbox"), "\(difference.explanation)")
        #expect(difference.cells.first { $0.run == "xcode" }?.access == nil)
    }

    @Test("Passes in local only, fails in sandbox: the team's app in Sandbox may be the cause as well as the product")
    func sandboxWithoutAppRun() throws {
        let difference = try onlyDifference(F.runs("upgrade/premium", [("local", .pass, ["premium"]), ("sandbox", .fail, [])]))
        #expect(difference.classification == .inconclusive)
        #expect(difference.explanation.hasPrefix("passes in local, fails in sandbox, and no run of the app itself on the simulator"))
        #expect(difference.explanation.contains("app logic or product setup"))
    }

    @Test("Passes in sandbox, fails in testflight: distributed build")
    func distributedBuild() throws {
        let difference = try onlyDifference(F.runs("restore/second-device", [("sandbox", .pass, ["pro"]), ("testflight", .fail, [])]))
        #expect(difference.classification == .distributedBuild)
    }

    @Test("Passes in local only, fails in testflight: no sandbox run to separate product setup from the build")
    func testFlightWithoutSandbox() throws {
        let difference = try onlyDifference(F.runs("restore/second-device", [("local", .pass, ["pro"]), ("testflight", .fail, [])]))
        #expect(difference.classification == .inconclusive)
    }

    @Test("Both fail with nothing passing before them, or only errors: inconclusive")
    func inconclusive() throws {
        let bothFail = try onlyDifference(F.runs("x/y", [("sandbox", .fail, []), ("testflight", .fail, [])]))
        #expect(bothFail.classification == .inconclusive)
        #expect(bothFail.explanation == "fails in sandbox, and no run in an earlier environment passes the step")
        let error = try onlyDifference(F.runs("x/y", [("local", .pass, []), ("exec", .error, nil)]))
        #expect(error.classification == .inconclusive)
        #expect(error.explanation.hasPrefix("errors in exec"))
        let server = try onlyDifference(F.runs("x/y", [("sandbox", .pass, []), ("server", .fail, [])]))
        #expect(server.classification == .inconclusive)
        #expect(server.explanation == "fails in server, and no local run passes the step to compare the backend with")
    }

    @Test("Passes in local, fails in server: server logic; with an app failing too, the app's classification names the server as well")
    func serverLogic() throws {
        let server = try onlyDifference(F.runs("x/y", [("local", .pass, []), ("app", .pass, []), ("server", .fail, ["pro"])]))
        #expect(server.classification == .serverLogic)
        #expect(server.explanation
            == "passes in local, fails in server: the backend grants access differently from what the App Store's notifications say")
        let both = try onlyDifference(F.runs("x/y", [("local", .pass, []), ("app", .fail, ["pro"]), ("server", .fail, ["pro"])]))
        #expect(both.classification == .appLogic)
        #expect(both.explanation.hasSuffix("; it fails in server as well (server logic)"))
        let limit = try onlyDifference(F.runs("x/y", [("local", .fail, []), ("server", .fail, [])]))
        #expect(limit.classification == .expectationContradictsStoreKit)
    }

    @Test("An error after the first failing environment does not hide it; one before it does")
    func errorsAroundTheFailure() throws {
        let after = try onlyDifference(F.runs("x/y", [("local", .pass, []), ("exec", .fail, ["pro"]), ("sandbox", .error, nil)]))
        #expect(after.classification == .appLogic)
        let before = try onlyDifference(F.runs("x/y", [("local", .pass, []), ("exec", .error, nil), ("sandbox", .fail, ["pro"])]))
        #expect(before.classification == .inconclusive)
    }

    @Test("Sandbox stops after 12 renewals: a renewal count past the cap is a known divergence")
    func sandboxRenewalCap() throws {
        let expected = Expectation(access: ["plus"], renewals: 13)
        let runs = [
            F.run("local", [F.record("renewal/plus", 0, .pass, action: .renew, expected: expected, access: ["plus"], renewals: 13)]),
            F.run("sandbox", [F.record("renewal/plus", 0, .fail, action: .renew, expected: expected, access: [], renewals: 12)]),
        ]
        let difference = try onlyDifference(runs)
        #expect(difference.classification == .knownEnvironmentDivergence)
        #expect(difference.divergences.map(\.id) == [.sandboxRenewalLimit])
        #expect(difference.divergences.first?.source == "https://developer.apple.com/documentation/storekit/testing-an-auto-renewable-subscription")
        #expect(difference.cells.map(\.divergence) == [nil, .sandboxRenewalLimit])
        #expect(Comparator.compare(runs).unexplained == 0)
    }

    @Test("After the cap the subscription expires: a later step with fewer renewals than the passing run is explained too")
    func expiryAfterCap() throws {
        let runs = [
            F.run("local", [F.record("renewal/plus", 1, .pass, access: ["plus"], renewals: 14)]),
            F.run("testflight", [F.record("renewal/plus", 1, .fail, expected: Expectation(access: ["plus"]), access: [], renewals: 6)]),
        ]
        let difference = try onlyDifference(runs)
        #expect(difference.classification == .knownEnvironmentDivergence)
        #expect(difference.divergences.map(\.id) == [.testFlightRenewalLimit])
    }

    @Test("A failure at or below the cap is not explained by it")
    func belowCap() throws {
        let runs = [
            F.run("local", [F.record("renewal/plus", 0, .pass, action: .renew, access: ["plus"], renewals: 12)]),
            F.run("sandbox", [F.record("renewal/plus", 0, .fail, action: .renew, access: [], renewals: 12)]),
        ]
        // Not the known divergence: classified as any Sandbox failure that only local passes.
        #expect(try onlyDifference(runs).classification == .inconclusive)
    }

    @Test("TestFlight cannot enter billing retry: the failRenewal step and the steps after it are known divergences")
    func testFlightBillingRetry() throws {
        let runs = [
            F.run("sandbox", [F.record("billing-retry/plus", 0, .pass, action: .failRenewal, access: ["plus"]),
                              F.record("billing-retry/plus", 1, .pass, action: .advanceTime, access: [])]),
            F.run("testflight", [F.record("billing-retry/plus", 0, .pass, action: .failRenewal, access: ["plus"]),
                                 F.record("billing-retry/plus", 1, .fail, action: .advanceTime, access: ["plus"])]),
        ]
        let difference = try onlyDifference(runs)
        #expect(difference.step == 1)
        #expect(difference.classification == .knownEnvironmentDivergence)
        #expect(difference.divergences.map(\.id) == [.testFlightBillingRetry])
    }

    @Test("A local run on a Sandbox or TestFlight clock has those limits: its renewal cap and skips are known divergences")
    func localOnModelledClock() throws {
        let capped = [
            F.run("local", [F.record("renewal/plus", 0, .pass, action: .renew, access: ["plus"], renewals: 13)]),
            F.run("local", [F.record("renewal/plus", 0, .fail, action: .renew, expected: Expectation(renewals: 13), access: [],
                                     renewals: 12, clock: "sandbox:5")]),
        ]
        let difference = try onlyDifference(capped)
        #expect(difference.classification == .knownEnvironmentDivergence)
        #expect(difference.divergences.map(\.id) == [.sandboxRenewalLimit])
        let reason = "step 2 (failRenewal) was skipped: environment limit: TestFlight purchases cannot fail to renew: to test "
            + "billing retry or a billing grace period, subscribe with a Sandbox Apple Account"
        var testFlightClock = F.run("local", [F.record("billing/plus", 3, .skipped, action: .observe, reason: reason)])
        testFlightClock.clock = "testflight"
        let skipped = try onlyDifference([F.run("local", [F.record("billing/plus", 3, .pass, access: [])]), testFlightClock])
        #expect(skipped.divergences.map(\.id) == [.testFlightBillingRetry])
        let realClock = [F.run("local", [F.record("r/p", 0, .pass, action: .renew, access: ["plus"], renewals: 13)]),
                         F.run("local", [F.record("r/p", 0, .fail, action: .renew, access: [], renewals: 12, clock: "real")])]
        #expect(try onlyDifference(realClock).classification == .expectationContradictsStoreKit)
    }

    @Test("A failing step whose observation says the environment stopped auto-renew is the renewal limit")
    func renewalLimitMessage() throws {
        var observed = F.record("r/p", 0, .fail, action: .advanceTime, access: [], renewals: 3)
        observed.observed?.storeMessage = "sandbox:3 renews a subscription at most 12 times; auto-renew stopped"
        let runs = [F.run("exec", [F.record("r/p", 0, .pass, action: .advanceTime, access: ["plus"])]), F.run("sandbox", [observed])]
        #expect(try onlyDifference(runs).divergences.map(\.id) == [.sandboxRenewalLimit])
    }

    @Test("A limit does not explain a failure that a run under the same limits passed: exec and local both on sandbox:5 is app logic")
    func sameLimitsPassedElsewhere() throws {
        let message = "sandbox:5 renews a subscription at most 12 times; auto-renew stopped"
        var reference = F.record("limit/p", 3, .pass, action: .advanceTime, expected: Expectation(access: []), access: [],
                                 renewals: 12, clock: "sandbox:5")
        reference.observed?.message = message
        // The app keeps access after the subscription expired: the same limit was in force, so it is not the cause.
        var app = F.record("limit/p", 3, .fail, action: .advanceTime, expected: Expectation(access: []), access: ["plus"],
                           renewals: 12, clock: "sandbox:5")
        app.observed?.message = message
        let difference = try onlyDifference([F.run("local", [reference]), F.run("exec", [app])])
        #expect(difference.classification == .appLogic)
        #expect(difference.divergences.isEmpty)
        #expect(Comparator.compare([F.run("local", [reference]), F.run("exec", [app])]).unexplained == 1)

        // A reference on the real clock ran without the limit: an app that lost access where the expectation
        // (written for the real clock) kept it is the limit's doing.
        let unlimited = F.record("limit/p", 3, .pass, action: .advanceTime, expected: Expectation(access: ["plus"]), access: ["plus"],
                                 renewals: 13, clock: "real")
        var expired = F.record("limit/p", 3, .fail, action: .advanceTime, expected: Expectation(access: ["plus"]), access: [],
                               renewals: 12, clock: "sandbox:5")
        expired.observed?.message = message
        #expect(try onlyDifference([F.run("local", [unlimited]), F.run("exec", [expired])]).divergences.map(\.id) == [.sandboxRenewalLimit])
    }

    @Test("A limit never explains access the expectation does not grant: two app runs that keep access after expiry are not the limit")
    func limitDoesNotGrantAccess() throws {
        let message = "sandbox:5 renews a subscription at most 12 times; auto-renew stopped"
        var kept = F.record("limit/p", 3, .fail, action: .advanceTime, expected: Expectation(access: []), access: ["plus"],
                            renewals: 12, clock: "sandbox:5")
        kept.observed?.message = message
        let difference = try onlyDifference([F.run("exec", [kept]), F.run("my-driver", [kept])])
        #expect(difference.divergences.isEmpty)
        #expect(difference.classification != .knownEnvironmentDivergence)
        // Access taken away early is what the limit does: still explained.
        var ended = F.record("limit/p", 3, .fail, action: .advanceTime, expected: Expectation(access: ["plus"]), access: [],
                             renewals: 12, clock: "sandbox:5")
        ended.observed?.message = message
        #expect(try onlyDifference([F.run("exec", [ended]), F.run("my-driver", [ended])]).divergences.map(\.id) == [.sandboxRenewalLimit])
    }

    @Test("A failRenewal step skipped in TestFlight is the billing retry limit whatever the reason says")
    func skippedFailRenewal() throws {
        let runs = [F.run("sandbox", [F.record("b/r", 0, .pass, action: .failRenewal, access: ["plus"])]),
                    F.run("testflight", [F.record("b/r", 0, .skipped, action: .failRenewal, reason: "the tester could not do this")])]
        #expect(try onlyDifference(runs).divergences.map(\.id) == [.testFlightBillingRetry])
        let sandboxSkip = [F.run("local", [F.record("b/r", 0, .pass, action: .failRenewal, access: ["plus"])]),
                           F.run("sandbox", [F.record("b/r", 0, .skipped, action: .failRenewal, reason: "the tester could not do this")])]
        #expect(try onlyDifference(sandboxSkip).classification == .inconclusive)
    }

    @Test("A skip whose reason names a documented limit is a known divergence; another reason is inconclusive", arguments: [
        ("sandbox", "Sandbox renews a subscription up to 12 times", KnownDivergence?.some(.sandboxRenewalLimit)),
        ("testflight", "TestFlight purchases cannot fail to renew: test billing retry in Sandbox", .testFlightBillingRetry),
        ("testflight", "renews at most 6 times in TestFlight", .testFlightRenewalLimit),
        ("testflight", "subscriptions renew daily in TestFlight", .testFlightDailyRenewals),
        ("sandbox", "renews up to 6 times", nil),
        ("sandbox", "Family Sharing purchases cannot be made here", nil),
    ])
    func skipReasons(environment: String, reason: String, divergence: KnownDivergence?) throws {
        let runs = [
            F.run("local", [F.record("c/d", 0, .pass, access: [])]),
            F.run(environment, [F.record("c/d", 0, .skipped, reason: reason)]),
        ]
        let difference = try onlyDifference(runs)
        #expect(difference.divergences.map(\.id) == (divergence.map { [$0] } ?? []))
        #expect(difference.classification == (divergence == nil ? .inconclusive : .knownEnvironmentDivergence))
    }

    @Test("TestFlight's daily renewals: an error on a step that waits a day or more is a known divergence")
    func dailyRenewals() throws {
        let long = [F.run("sandbox", [F.record("r/s", 0, .pass, action: .renew, access: ["plus"])]),
                    F.run("testflight", [F.record("r/s", 0, .error, action: .renew, modelledWallTimeMs: 2 * 86_400_000)])]
        #expect(try onlyDifference(long).divergences.map(\.id) == [.testFlightDailyRenewals])
        let byStoreTime = [F.run("sandbox", [F.record("r/s", 1, .pass, action: .renew, access: ["plus"])]),
                           F.run("testflight", [F.record("r/s", 0, .pass, access: ["plus"], storeTime: 0),
                                                F.record("r/s", 1, .error, action: .renew, storeTime: 86_400_000)])]
        #expect(try onlyDifference(byStoreTime).classification == .knownEnvironmentDivergence)
        let short = [F.run("sandbox", [F.record("r/s", 0, .pass, action: .renew, access: ["plus"])]),
                     F.run("testflight", [F.record("r/s", 0, .error, action: .renew, modelledWallTimeMs: 3_600_000)])]
        #expect(try onlyDifference(short).classification == .inconclusive)
    }

    @Test("Steps blocked after a difference are folded into it, not listed again")
    func blockedAfterDifference() throws {
        let runs = [
            F.run("local", [F.record("refund/pro", 0, .pass, access: []), F.record("refund/pro", 1, .pass, access: []),
                            F.record("refund/pro", 2, .pass, access: [])]),
            F.run("exec", [F.record("refund/pro", 0, .fail, access: ["pro"]), F.record("refund/pro", 1, .blocked),
                           F.record("refund/pro", 2, .blocked)]),
        ]
        let difference = try onlyDifference(runs)
        #expect(difference.step == 0)
        #expect(difference.blockedAfter == [1, 2])
    }

    @Test("Same verdicts everywhere are no difference: all pass, or all skipped")
    func noDifference() {
        let comparison = Comparator.compare(F.runs("a/b", [("local", .pass, ["pro"]), ("exec", .pass, [])])
                                            + [F.run("sandbox", [F.record("a/b", 0, .pass, access: ["pro"])])])
        #expect(comparison.differences.isEmpty)
        #expect(comparison.stepsCompared == 1 && comparison.casesCompared == 1)
        let skipped = Comparator.compare(F.runs("a/b", [("sandbox", .skipped, nil), ("testflight", .skipped, nil)]))
        #expect(skipped.differences.isEmpty)
        #expect(comparison.unexplained == 0 && comparison.warnings.isEmpty)
    }

    @Test("Different matrix digests are flagged and warned about, not hidden")
    func matrixVersions() {
        let runs = [F.run("local", [F.record("a/b", 0, .pass, access: [])]),
                    F.run("sandbox", [F.record("a/b", 0, .pass, access: [])], digest: F.otherDigest)]
        let comparison = Comparator.compare(runs)
        #expect(comparison.matrixVersionsDiffer)
        #expect(comparison.warnings == ["the runs ran different matrix versions (matrix SHA-256 local 1a2b3c4d1a2b, "
            + "sandbox 9f8e7d6c9f8e); steps are joined by case id and step index, which may not name the same steps"])
        #expect(!Comparator.compare([runs[0], runs[0]]).matrixVersionsDiffer)
    }

    @Test("A case in one run only, and a step missing from a run, are listed and warned about")
    func unmatched() {
        let runs = [
            F.run("local", [F.record("a/b", 0, .pass, access: []), F.record("a/b", 1, .pass, access: []),
                            F.record("only/local", 0, .pass, access: [])]),
            F.run("sandbox", [F.record("a/b", 0, .pass, access: [])], status: "interrupted"),
        ]
        let comparison = Comparator.compare(runs)
        #expect(comparison.unmatched.map { "\($0.case) \($0.step.map(String.init) ?? "-") \($0.presentIn) \($0.missingFrom)" } == [
            #"a/b 1 ["local"] ["sandbox"]"#,
            #"only/local - ["local"] ["sandbox"]"#,
        ])
        #expect(comparison.warnings == [
            "run sandbox did not complete (status interrupted); steps it did not reach are missing from the comparison",
            #"1 case is not in every run: "only/local" (missing from sandbox)"#,
            #"1 step is not in every run that has the case: "a/b" step 1 (missing from sandbox)"#,
        ])
        #expect(comparison.casesCompared == 1 && comparison.stepsCompared == 1)
    }

    @Test("Runs of the same environment get numbered labels; a resumed step counts its latest record")
    func labelsAndLatest() throws {
        var second = F.run("local", [F.record("a/b", 0, .fail, access: ["pro"]), F.record("a/b", 0, .pass, access: [])])
        second.path = "other"
        let comparison = Comparator.compare([F.run("local", [F.record("a/b", 0, .pass, access: [])]), second])
        #expect(comparison.runs.map(\.label) == ["local#1", "local#2"])
        #expect(comparison.differences.isEmpty)
    }

    @Test("Every classification at once: counts, unexplained total, order of differences")
    func everyClassification() {
        let comparison = Comparator.compare(F.everyClassification)
        #expect(comparison.differences.map(\.classification) == [
            .expectationContradictsStoreKit, .appLogic, .productSetup, .distributedBuild, .knownEnvironmentDivergence,
            .knownEnvironmentDivergence, .inconclusive,
        ])
        #expect(comparison.counts == ["expectationContradictsStoreKit": 1, "appLogic": 1, "productSetup": 1, "distributedBuild": 1,
                                      "knownEnvironmentDivergence": 2, "inconclusive": 1, "serverLogic": 0])
        #expect(comparison.unexplained == 5)
        #expect(comparison.runs.map(\.role) == [.reference, .app, .sandbox, .testflight])
        #expect(comparison.unmatched.map(\.case) == ["offer/intro"])
        #expect(comparison.warnings.count == 3)
    }

    @Test("Environment names map to roles without regard to case; anything unknown is an app environment")
    func roles() {
        #expect(EnvironmentRole(environment: "Local") == .reference)
        #expect(EnvironmentRole(environment: "TestFlight") == .testflight)
        #expect(EnvironmentRole(environment: "XCODE") == .app)
        #expect(EnvironmentRole(environment: "server") == .server)
    }

    @Test("Every limit a guided run skips for is a known divergence, with Apple's page where Apple states it")
    func divergencesCoverGuidedLimits() {
        for limit in GuidedLimit.allCases {
            for role in [EnvironmentRole.sandbox, .testflight] {
                let divergence = KnownDivergence(limit, role: role)
                #expect(KnownDivergence.allCases.contains(divergence), "\(limit) in \(role)")
                #expect(KnownDivergence(rawValue: divergence.rawValue) == divergence)
            }
        }
        #expect(KnownDivergence(.renewalLimit, role: .sandbox) == .sandboxRenewalLimit)
        #expect(KnownDivergence(.renewalLimit, role: .testflight) == .testFlightRenewalLimit)
        #expect(KnownDivergence(.billingRetry, role: .testflight) == .testFlightBillingRetry)
        #expect(KnownDivergence(.askToBuyAnswer, role: .sandbox).summary == GuidedLimit.askToBuyAnswer.summary)
        #expect(KnownDivergence(rawValue: "noSuchLimit") == nil)
        let unsourced = KnownDivergence.allCases.filter { $0.source == nil }.map(\.rawValue)
        #expect(Set(unsourced) == ["removeFromSale", "preciseTermination", "otherClock"])
        #expect(KnownDivergence.allCases.compactMap(\.source).allSatisfy { $0.hasPrefix("https://developer.apple.com/") })
    }

    @Test("A skip that names its environment limit is that known divergence, in that limit's environments only",
          arguments: [("sandbox", "askToBuyAnswer", "askToBuyAnswer"), ("testflight", "expire", "expire"),
                      ("sandbox", "renewalLimit", "sandboxRenewalLimit"), ("testflight", "renewalLimit", "testFlightRenewalLimit"),
                      ("sandbox", "otherClock", "otherClock"), ("sandbox", "failedPurchase", nil),
                      ("local", "askToBuyAnswer", nil), ("sandbox", "notALimit", nil)])
    func namedLimits(environment: String, limit: String, divergence: String?) {
        var record = CompareFixture.record("pending/approved", 2, .skipped, in: environment, action: .approveAskToBuy,
                                           reason: "environment limit: whatever the words")
        record.environmentLimit = limit
        let found = KnownDivergence.explain(record, role: EnvironmentRole(environment: environment), caseRecords: [record], passing: [])
        #expect(found?.rawValue == divergence)
    }
}
