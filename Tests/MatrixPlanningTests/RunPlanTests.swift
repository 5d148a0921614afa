import Foundation
import Testing
import MatrixPlanning

/// The wall-time arithmetic of a plan, independent of any clock.
@Suite("Run plan")
struct RunPlanTests {
    func waiting(_ id: String, _ ms: Int64, skipped: String? = nil, account: String? = nil, grace: Int? = nil) -> RunPlan.CasePlan {
        RunPlan.CasePlan(id: id, kind: "renewal", account: account ?? id, clock: "sandbox:5", skipped: skipped,
                         appSettings: RunPlan.AppSettings(gracePeriodDays: grace),
                         steps: [RunPlan.StepPlan(index: 0, action: "renew", instruction: "wait", waitMs: ms)])
    }

    @Test("longest first onto the least busy account: 7 5 4 3 3 2 over two accounts take 12, the best possible")
    func longestProcessingTimeFirst() {
        let lanes = RunPlan.lanes([("a", 7), ("b", 5), ("c", 4), ("d", 3), ("e", 3), ("f", 2)], accounts: 2)
        #expect(lanes.map(\.cases) == [["a", "d", "f"], ["b", "c", "e"]])
        #expect(lanes.map(\.waitMs) == [12, 12])
    }

    @Test("ties keep matrix order and go to the lowest-numbered account; more accounts than cases leave some idle")
    func ties() {
        let lanes = RunPlan.lanes([("a", 1), ("b", 1), ("c", 1)], accounts: 4)
        #expect(lanes.map(\.cases) == [["a"], ["b"], ["c"], []])
    }

    @Test("skipped cases cost nothing and run on no account; one account waits the sum")
    func totals() {
        let plan = RunPlan(matrix: "m.json", environment: "sandbox", clock: "sandbox:5", clockSummary: "", sources: [],
                           cases: [waiting("a", 300_000), waiting("b", 600_000), waiting("c", 0, skipped: "environment limit")],
                           accounts: 1)
        #expect(plan.sequentialMs == 900_000 && plan.parallelMs == 900_000)
        #expect(plan.lanes.map(\.cases) == [["b", "a"]])
    }

    @Test("an account used in two groups keeps its lane and goes first; the others fill around it")
    func pinnedAcrossGroups() {
        let cases = [waiting("a16", 5, account: "s", grace: 16), waiting("b0", 5, account: "s", grace: 0), waiting("c0", 20, grace: 0)]
        let plan = RunPlan(matrix: "m.json", environment: "sandbox", clock: "sandbox:5", clockSummary: "", sources: [], cases: cases,
                           accounts: 2, settings: { ["grace \($0.gracePeriodDays ?? -1)"] })
        #expect(plan.groups.map(\.settings) == [["grace 16"], ["grace 0"]])
        #expect(plan.groups.map { $0.lanes.map(\.cases) } == [[["a16"], []], [["b0"], ["c0"]]])
        #expect(plan.groups.map(\.parallelMs) == [5, 20] && plan.parallelMs == 25 && plan.sequentialMs == 30)
        #expect(plan.lanes.map(\.sharedAliases) == [["s"], ["c0"]])
    }

    @Test("cases that need no app-wide setting go where they lengthen the run least, then to the lane with fewest cases")
    func fillingGroups() {
        let cases = [waiting("g", 10, grace: 16), waiting("free1", 0), waiting("free2", 0), waiting("free3", 4)]
        let plan = RunPlan(matrix: "m.json", environment: "sandbox", clock: "sandbox:5", clockSummary: "", sources: [], cases: cases, accounts: 2)
        #expect(plan.groups.count == 1)
        #expect(plan.groups[0].lanes.map(\.cases) == [["g", "free2"], ["free3", "free1"]])
        #expect(plan.parallelMs == 10)
    }

    @Test("a price increase runs alone in the last group; other cases of its account stay on its lane")
    func priceIncreaseAlone() {
        var increase = waiting("inc", 3, account: "p")
        increase.appSettings = RunPlan.AppSettings(priceIncrease: "monthly")
        let cases = [increase, waiting("x", 10), waiting("y", 10), waiting("p2", 1, account: "p")]
        let plan = RunPlan(matrix: "m.json", environment: "sandbox", clock: "sandbox:5", clockSummary: "", sources: [], cases: cases, accounts: 2)
        #expect(plan.groups.map(\.appSettings) == [RunPlan.AppSettings(), RunPlan.AppSettings(priceIncrease: "monthly")])
        #expect(plan.groups.map { $0.lanes.map(\.cases) } == [[["y", "p2"], ["x"]], [["inc"], []]])
        #expect(plan.parallelMs == 14 && plan.lanes.map(\.sharedAliases) == [["y", "p"], ["x"]])
    }

    @Test("the JSON form is version 2: groups with their lanes, cases with setup and placement, no top-level lanes")
    func jsonShape() throws {
        var item = waiting("a", 300_000, grace: 16)
        item.setup = ["clear the purchase history first: matrix sandbox clear a"]
        item.teardown = ["turn it back on"]
        let plan = RunPlan(matrix: "m.json", environment: "sandbox", clock: "sandbox:5", clockSummary: "", clockNote: "note", sources: [],
                           cases: [item], accounts: 1, howTo: [RunPlan.HowTo(capability: "refund", how: "ask", source: "https://x")])
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(plan)) as? [String: Any])
        #expect(object["planVersion"] as? Int == 2)
        #expect(object["lanes"] == nil)
        #expect(object["clockNote"] as? String == "note")
        let groups = try #require(object["groups"] as? [[String: Any]])
        #expect(groups.count == 1 && (groups[0]["appSettings"] as? [String: Int]) == ["gracePeriodDays": 16])
        let lanes = try #require(groups[0]["lanes"] as? [[String: Any]])
        #expect(lanes[0]["cases"] as? [String] == ["a"] && lanes[0]["sharedAliases"] as? [String] == ["a"])
        let encoded = try #require((object["cases"] as? [[String: Any]])?.first)
        #expect(encoded["group"] as? Int == 1 && encoded["lane"] as? Int == 1)
        #expect(encoded["setup"] as? [String] == ["clear the purchase history first: matrix sandbox clear a"])
        #expect(encoded["teardown"] as? [String] == ["turn it back on"])
        #expect((object["howTo"] as? [[String: String]])?.first == ["capability": "refund", "how": "ask", "source": "https://x"])
    }
}
