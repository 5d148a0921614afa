import Testing
import MatrixEngine
import MatrixModel

@Suite("Exercise policy")
struct ExercisePolicyUnitTests {
    func counts(pass: Int = 0, fail: Int = 0, skipped: Int = 0, blocked: Int = 0) -> VerdictCounts {
        var counts = VerdictCounts()
        counts.pass = pass
        counts.fail = fail
        counts.skipped = skipped
        counts.blocked = blocked
        return counts
    }

    @Test("by default only a run that performed no step falls short")
    func defaults() {
        let policy = ExercisePolicy()
        #expect(policy.shortfall(counts(skipped: 140))?.hasPrefix("no step was performed (no step performed: 140 skipped)") == true)
        #expect(policy.shortfall(counts(pass: 1, skipped: 139)) == nil)
        #expect(policy.shortfall(counts(fail: 1, blocked: 3)) == nil, "a failing run fails for its failure, not for this")
        #expect(policy.shortfall(VerdictCounts()) == nil)
    }

    @Test("--fail-on-skip and --min-performed")
    func options() {
        #expect(ExercisePolicy(failOnSkip: true).shortfall(counts(pass: 9, skipped: 1)) == "1 step was skipped and --fail-on-skip is on")
        #expect(ExercisePolicy(failOnSkip: true).shortfall(counts(pass: 9)) == nil)
        let minimum = ExercisePolicy(minimumPerformedPercent: 90)
        #expect(minimum.shortfall(counts(pass: 89, skipped: 11)) == "89 of 100 steps were performed (89 %), fewer than --min-performed 90")
        #expect(minimum.shortfall(counts(pass: 90, skipped: 10)) == nil)
    }

    @Test("the exercised phrase says how much was performed")
    func phrase() {
        #expect(counts(pass: 4).exercised == "every step performed")
        #expect(counts(pass: 3, skipped: 1).exercised == "3 of 4 steps performed (75 %), 1 skipped")
        #expect(counts(skipped: 2, blocked: 1).exercised == "no step performed: 2 skipped, 1 blocked")
        #expect(counts(pass: 3, skipped: 1).performedShare == "3 of 4 steps performed (75 %)")
        #expect(counts(skipped: 2).performedShare == "no step performed")
    }
}
