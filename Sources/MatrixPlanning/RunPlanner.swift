import LocalEnvironment
import MatrixEngine
import MatrixModel
import ReferenceApp
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
    /// The environments a plan is for: those where a person performs the steps and waits for the store.
    public static let environments: [EnvironmentKind] = [.sandbox, .testflight, .xcode]

    /// The clock a plan uses unless told otherwise: Sandbox's default rate (5 minutes a month), TestFlight's
    /// daily renewals, or the `.storekit` file's `_timeRate` for Xcode (real time when it has none or an
    /// unknown one).
    public static func defaultSchedule(for environment: EnvironmentKind, storeKitTimeRate: Int?) -> RenewalSchedule {
        switch environment {
        case .sandbox: return .sandbox(.default)
        case .testflight: return .testFlight
        default:
            if case .success(let schedule) = RenewalSchedule.parse("xcode", storeKitTimeRate: storeKitTimeRate) { return schedule }
            return .xcode(.realTime)
        }
    }

    /// Plans every case of `matrix`: each case's setup, steps and waits, the groups of cases that need the same
    /// app-wide settings, and the lanes of each group.
    ///
    /// - Parameters:
    ///   - matrixPath: the matrix as the user named it, for the plan's header.
    ///   - schedule: the environment's clock; `nil` uses ``defaultSchedule(for:storeKitTimeRate:)``.
    ///     A case's own `store.clock` of the same environment wins.
    ///   - accounts: how many test accounts run cases in parallel.
    public static func plan(_ matrix: Matrix, matrixPath: String, environment: EnvironmentKind, schedule: RenewalSchedule? = nil,
                            accounts: Int = 1) async -> RunPlan {
        let clock = schedule ?? defaultSchedule(for: environment, storeKitTimeRate: matrix.catalog.settings.timeRate)
        var cases: [RunPlan.CasePlan] = []
        var howTo: [SandboxHowTo] = []
        for matrixCase in matrix.cases {
            let (plan, uses) = await planCase(matrixCase, of: matrix, environment: environment, schedule: clock)
            cases.append(plan)
            if plan.skipped == nil { howTo += uses.filter { !howTo.contains($0) } }
        }
        let note = schedule == nil ? clockNote(environment: environment, timeRate: matrix.catalog.settings.timeRate) : nil
        return RunPlan(matrix: matrixPath, environment: environment.name, clock: clock.description, clockSummary: clock.summary,
                       clockNote: note, sources: clock.sources.map(\.url), cases: cases, accounts: accounts,
                       howTo: SandboxHowTo.allCases.filter(howTo.contains).map(\.entry),
                       settings: { groupSettings($0, environment: environment, matrix: matrix) })
    }

    /// What to tell a tester about Xcode's default clock when `--clock` is not given and the catalog sets no time
    /// rate, sets 0 (what Xcode writes until someone picks a rate), or one this version does not know: real time,
    /// so every wait is a calendar period. `nil` when the catalog chose an accelerated rate.
    /// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/timerate-swift.enum
    static func clockNote(environment: EnvironmentKind, timeRate: Int?) -> String? {
        guard environment == .xcode else { return nil }
        let why: String
        switch timeRate {
        case nil:
            why = "the catalog sets no _timeRate and --clock was not given: StoreKit Testing in Xcode's default is real time"
        case 0?:
            why = "the catalog's _timeRate is 0 and --clock was not given: that is real time, StoreKit Testing in Xcode's default"
        case let rate?:
            guard case .failure = RenewalSchedule.parse("xcode", storeKitTimeRate: rate) else { return nil }
            why = "the catalog's _timeRate \(rate) is not a time rate this version knows, so the plan uses real time"
        }
        return why + ", so a monthly renewal waits a month. Plan with a faster rate, e.g. --clock xcode:13 (monthly renewal every "
            + "5 minutes, like Sandbox's default) or --clock xcode:1005 (every period renews in 2 seconds, Xcode's fastest), "
            + "and set the same time rate in the StoreKit configuration (SKTestSession.timeRate)"
    }

    /// The lines that set a group's app-wide settings before it starts.
    static func groupSettings(_ settings: RunPlan.AppSettings, environment: EnvironmentKind, matrix: Matrix) -> [String] {
        var lines: [String] = []
        if let days = settings.gracePeriodDays {
            switch (environment, days > 0) {
            case (.xcode, true): lines.append("turn the billing grace period on in the StoreKit configuration")
            case (.xcode, false): lines.append("turn the billing grace period off in the StoreKit configuration")
            case (_, true): lines.append("set the billing grace period to \(days) days in App Store Connect")
            case (_, false): lines.append("turn the billing grace period off in App Store Connect")
            }
        }
        if let product = settings.priceIncrease {
            let name = matrix.catalog.product(product)?.displayName.map { "\($0) (\(product))" } ?? product
            lines.append("run this case alone: a price increase in App Store Connect reaches every subscriber of \(name)")
            lines.append("check that \(name) has its original price in App Store Connect")
        }
        if !lines.isEmpty && environment != .xcode {
            lines.append("wait until the change reaches Sandbox: App Store Connect changes can take up to 1 hour")
        }
        return lines
    }

    static func planCase(_ matrixCase: MatrixCase, of matrix: Matrix, environment: EnvironmentKind, schedule: RenewalSchedule) async
        -> (RunPlan.CasePlan, [SandboxHowTo]) {
        let settings = matrix.storeSettings(for: matrixCase)
        var caseSchedule = schedule
        var clockLines: [String] = []
        var caseSkip: String?
        if let text = settings.clock {
            switch RenewalSchedule.parse(text, storeKitTimeRate: matrix.catalog.settings.timeRate) {
            case .success(let parsed) where parsed.environment == environment:
                caseSchedule = parsed
                if parsed != schedule && environment == .xcode { clockLines.append(StepInstruction.clockSetup(parsed, environment: environment)) }
            case .success:
                caseSkip = GuidedLimits.clockSkip(text, environment: environment)?.reason
            case .failure(let problem):
                caseSkip = "store.clock: \(problem.message)"
            }
        }

        let describe = StepInstruction(matrix: matrix, matrixCase: matrixCase, environment: environment, schedule: caseSchedule)
        let steps: [RunPlan.StepPlan]
        if let caseSkip {
            steps = matrixCase.steps.enumerated().map { index, step in
                RunPlan.StepPlan(index: index, action: step.action.rawValue, instruction: describe.text(step), check: describe.check(step),
                                 skipped: caseSkip)
            }
        } else {
            steps = await modelSteps(matrixCase, of: matrix, environment: environment, schedule: caseSchedule, describe: describe)
        }
        let setup = CaseSetup(matrix: matrix, matrixCase: matrixCase, environment: environment, schedule: caseSchedule,
                              performed: steps.map { $0.skipped == nil })
        let plan = RunPlan.CasePlan(id: matrixCase.id, kind: matrixCase.kind, account: matrixCase.account, accounts: setup.accounts,
                                    clock: caseSchedule.description, skipped: caseSkip, dedicated: caseSkip == nil ? setup.dedicated : nil,
                                    appSettings: caseSkip == nil ? setup.appSettings : .init(),
                                    setup: caseSkip == nil ? clockLines + setup.setup : [], teardown: caseSkip == nil ? setup.teardown : [],
                                    steps: steps)
        return (plan, setup.howTo)
    }

    /// Performs the case's steps on the embedded store under `schedule` and measures each wait.
    static func modelSteps(_ matrixCase: MatrixCase, of matrix: Matrix, environment: EnvironmentKind, schedule: RenewalSchedule,
                           describe: StepInstruction) async -> [RunPlan.StepPlan] {
        var plans: [RunPlan.StepPlan] = []
        let session: LocalSession?
        var stop: String?
        do {
            session = try LocalSession(matrix: matrix, matrixCase: matrixCase, schedule: schedule, app: .reference())
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
                case .skipped(let reason, _):
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
    static func personLimit(_ step: Step, environment: EnvironmentKind, schedule: RenewalSchedule, renewalsSoFar: Int) -> String? {
        switch environment {
        case .xcode:
            guard step.action == .renew, let maximum = schedule.maximumRenewals, renewalsSoFar + (step.count ?? 1) > maximum else { return nil }
            return "\(environment.displayName) renews a subscription at most \(maximum) times"
        default:
            return GuidedLimits.reason(for: step, environment: environment, schedule: schedule, renewalsSoFar: renewalsSoFar)
        }
    }

    /// The renewals the subscription a `renew` step acts on has had so far.
    static func renewalCount(_ step: Step, matrixCase: MatrixCase, session: LocalSession) -> Int? {
        guard step.action == .renew else { return nil }
        let account = step.account ?? matrixCase.account
        return session.withStore { store in
            guard let key = try? store.subscriptionKey(account: account, productID: step.product) else { return nil }
            return store.subscriptions[key]?.renewalCount
        }
    }
}
