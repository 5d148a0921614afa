import MatrixCore
import Testing

/// The wall-time arithmetic of a plan, independent of any clock.
@Suite("Run plan")
struct RunPlanTests {
    func waiting(_ id: String, _ ms: Int64, skipped: String? = nil) -> RunPlan.CasePlan {
        RunPlan.CasePlan(id: id, kind: "renewal", account: id, clock: "sandbox:5", skipped: skipped,
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
}
