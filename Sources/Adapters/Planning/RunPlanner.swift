import MatrixCore
import StoreSimulator

/// Plans a run of a matrix in an environment where a person performs the steps: Sandbox, TestFlight or
/// StoreKit Testing in Xcode.
///
/// Nothing is run in that environment and nothing is written. Each case is modelled on the embedded store
/// under the environment's clock (``RenewalSchedule``): a wait lasts exactly what the store's clock moves for
/// the step there (`periodEnd` for renewals and expirations, `gracePeriod` and `billingRetryPeriod` for the
/// billing points), which is also what `matrix run --clock` records as `modelledWallTimeMs`. `advanceTime by`
/// durations are real time in every environment. Steps the environment cannot perform are skipped with the
/// reason, and so is the rest of their case: renewals past the environment's limit (12 in Sandbox, 6 in
/// TestFlight), billing problems in TestFlight, what a person cannot do in Sandbox or TestFlight
/// (``GuidedLimits``, the rules a guided `matrix run --env sandbox` follows), and whole cases whose `store.clock`
/// is another environment's.
public enum RunPlanner {
    /// An environment a plan is for.
    public enum Environment: String, Sendable, Hashable, CaseIterable {
        case sandbox
        case testflight
        case xcode

        /// The environment's name in sentences.
        public var name: String {
            switch self {
            case .sandbox: "Sandbox"
            case .testflight: "TestFlight"
            case .xcode: "StoreKit Testing in Xcode"
            }
        }

        /// The clock a plan uses unless told otherwise: Sandbox's default rate (5 minutes a month), TestFlight's
        /// daily renewals, or the `.storekit` file's `_timeRate` for Xcode (real time when it has none or an
        /// unknown one).
        public func defaultSchedule(storeKitTimeRate: Int?) -> RenewalSchedule {
            switch self {
            case .sandbox: return .sandbox(.default)
            case .testflight: return .testFlight
            case .xcode:
                if case .success(let schedule) = RenewalSchedule.parse("xcode", storeKitTimeRate: storeKitTimeRate) { return schedule }
                return .xcode(.realTime)
            }
        }

        /// Whether `schedule` is one of this environment's clocks.
        public func owns(_ schedule: RenewalSchedule) -> Bool {
            switch (self, schedule.kind) {
            case (.sandbox, .sandbox), (.testflight, .testFlight), (.xcode, .xcode): true
            default: false
            }
        }

        /// The environment a schedule belongs to, in words, for "run it in …".
        static func name(of schedule: RenewalSchedule) -> String {
            switch schedule.kind {
            case .real: "Production"
            case .sandbox: Environment.sandbox.name
            case .testFlight: Environment.testflight.name
            case .xcode: Environment.xcode.name
            }
        }
    }

    /// Plans every case of `matrix`.
    ///
    /// - Parameters:
    ///   - matrixPath: the matrix as the user named it, for the plan's header.
    ///   - schedule: the environment's clock; `nil` uses ``Environment/defaultSchedule(storeKitTimeRate:)``.
    ///     A case's own `store.clock` of the same environment wins.
    ///   - accounts: how many test accounts run cases in parallel.
    public static func plan(_ matrix: Matrix, matrixPath: String, environment: Environment, schedule: RenewalSchedule? = nil,
                            accounts: Int = 1) async -> RunPlan {
        let clock = schedule ?? environment.defaultSchedule(storeKitTimeRate: matrix.catalog.settings.timeRate)
        var cases: [RunPlan.CasePlan] = []
        for matrixCase in matrix.cases {
            cases.append(await planCase(matrixCase, of: matrix, environment: environment, schedule: clock))
        }
        return RunPlan(matrix: matrixPath, environment: environment.rawValue, clock: clock.description, clockSummary: clock.summary,
                       sources: clock.sources.map(\.url), cases: cases, accounts: accounts)
    }

    static func planCase(_ matrixCase: MatrixCase, of matrix: Matrix, environment: Environment, schedule: RenewalSchedule) async -> RunPlan.CasePlan {
        let settings = matrix.storeSettings(for: matrixCase)
        var caseSchedule = schedule
        var setup: [String] = []
        var caseSkip: String?
        if let text = settings.clock {
            switch RenewalSchedule.parse(text, storeKitTimeRate: matrix.catalog.settings.timeRate) {
            case .success(let parsed) where environment.owns(parsed):
                caseSchedule = parsed
                if parsed != schedule { setup.append(StepInstruction.clockSetup(parsed, environment: environment)) }
            case .success(let parsed):
                caseSkip = "environment limit: the case models \(Environment.name(of: parsed)) (store.clock \"\(text)\"); run it there"
            case .failure(let problem):
                caseSkip = "store.clock: \(problem.message)"
            }
        }
        if settings.askToBuy == true { setup.append(StepInstruction.askToBuySetup(environment)) }
        if let days = settings.gracePeriodDays { setup.append(StepInstruction.gracePeriodSetup(days, environment: environment)) }

        let describe = StepInstruction(matrix: matrix, matrixCase: matrixCase, environment: environment, schedule: caseSchedule)
        if let caseSkip {
            let steps = matrixCase.steps.enumerated().map { index, step in
                RunPlan.StepPlan(index: index, action: step.action.rawValue, instruction: describe.text(step), check: describe.check(step),
                                 skipped: caseSkip)
            }
            return RunPlan.CasePlan(id: matrixCase.id, kind: matrixCase.kind, account: matrixCase.account, clock: caseSchedule.description,
                                    skipped: caseSkip, setup: setup, steps: steps)
        }
        return RunPlan.CasePlan(id: matrixCase.id, kind: matrixCase.kind, account: matrixCase.account, clock: caseSchedule.description,
                                setup: setup, steps: await modelSteps(matrixCase, of: matrix, environment: environment, schedule: caseSchedule,
                                                                describe: describe))
    }

    /// Performs the case's steps on the embedded store under `schedule` and measures each wait.
    static func modelSteps(_ matrixCase: MatrixCase, of matrix: Matrix, environment: Environment, schedule: RenewalSchedule,
                           describe: StepInstruction) async -> [RunPlan.StepPlan] {
        var plans: [RunPlan.StepPlan] = []
        let session: LocalSession?
        var stop: String?
        do {
            session = try LocalSession(matrix: matrix, matrixCase: matrixCase, schedule: schedule)
        } catch {
            session = nil
            stop = "the case cannot be modelled: \(error.message)"
        }
        for (index, step) in matrixCase.steps.enumerated() {
            var plan = RunPlan.StepPlan(index: index, action: step.action.rawValue, instruction: describe.text(step), check: describe.check(step),
                                        realTime: step.action == .advanceTime && step.by != nil)
            defer { plans.append(plan) }
            if let stop {
                plan.skipped = stop
                continue
            }
            guard let session else { continue }
            let renewalsBefore = renewalCount(step, matrixCase: matrixCase, session: session)
            if let limit = personLimit(step, environment: environment, schedule: schedule, renewalsSoFar: renewalsBefore ?? 0) {
                plan.skipped = "environment limit: \(limit)"
                stop = "step \(index) (\(step.action.rawValue)) was skipped as an environment limit"
                continue
            }
            do {
                switch try await session.perform(step, index: index) {
                case .observed(_, let wall):
                    plan.waitMs = max(0, wall ?? 0)
                    plan.wait = plan.waitMs > 0 ? RenewalSchedule.label(milliseconds: plan.waitMs) : nil
                    plan.instruction = describe.text(step, waitMs: plan.waitMs, renewalsBefore: renewalsBefore)
                case .skipped(let reason):
                    plan.skipped = reason
                    stop = "step \(index) (\(step.action.rawValue)) was skipped as an environment limit"
                }
            } catch {
                plan.skipped = "cannot be modelled: \((error as? AdapterError)?.message ?? "\(error)") (check the case with `matrix run`)"
                stop = "step \(index) (\(step.action.rawValue)) could not be modelled"
            }
        }
        return plans
    }

    /// Why a person cannot perform the step in the environment: ``GuidedLimits`` for Sandbox and TestFlight; in
    /// Xcode only renewal limits apply (none today).
    static func personLimit(_ step: Step, environment: Environment, schedule: RenewalSchedule, renewalsSoFar: Int) -> String? {
        switch environment {
        case .sandbox, .testflight:
            return GuidedLimits.reason(for: step, environment: environment.rawValue, schedule: schedule, renewalsSoFar: renewalsSoFar)
        case .xcode:
            guard step.action == .renew, let maximum = schedule.maximumRenewals, renewalsSoFar + (step.count ?? 1) > maximum else { return nil }
            return "\(environment.name) renews a subscription at most \(maximum) times"
        }
    }

    /// The renewals the subscription a `renew` step acts on has had so far.
    static func renewalCount(_ step: Step, matrixCase: MatrixCase, session: LocalSession) -> Int? {
        guard step.action == .renew else { return nil }
        let account = step.account ?? matrixCase.account
        guard let key = try? session.store.subscriptionKey(account: account, productID: step.product) else { return nil }
        return session.store.subscriptions[key]?.renewalCount
    }
}
