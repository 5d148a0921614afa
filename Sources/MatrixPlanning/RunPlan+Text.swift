import MatrixJSON
import MatrixModel

extension RunPlan {
    /// The plan for people: a header, the groups in run order (what to set first, then every case with its
    /// setup, steps one line each, waits and environment limits marked, and what to undo after it), the cases
    /// that cannot run here, the totals one after another and over the accounts in parallel, which aliases share
    /// an account, and how to do each thing in the environment with Apple's pages.
    public var text: String {
        var lines: [String] = []
        let environmentName = EnvironmentKind(environment).displayName
        lines.append("plan for \(matrix) in \(environmentName)")
        lines.append("clock \(clock): \(clockSummary)")
        if let clockNote { lines.append("note: \(clockNote)") }
        for group in groups {
            lines.append("")
            lines.append("group \(group.index) of \(groups.count) · \(Self.label(group.appSettings))")
            for setting in group.settings { lines.append("      set: \(setting)") }
            for item in cases where item.group == group.index { lines += caseLines(item) }
        }
        let skipped = cases.filter { $0.skipped != nil }
        if !skipped.isEmpty {
            lines.append("")
            lines.append("not run in \(environmentName):")
            for item in skipped { lines += caseLines(item) }
        }
        lines.append("")
        lines += summaryLines()
        // Each entry is one line: a line break in a value (a case id, a product) is escaped with the rest.
        return lines.map { TerminalText.visible($0) }.joined(separator: "\n") + "\n"
    }

    func caseLines(_ item: CasePlan) -> [String] {
        var header = "\(item.id) · account \(item.account)"
        if item.clock != clock { header += " · clock \(item.clock)" }
        if let skipped = item.skipped { return [header + " · SKIPPED: \(skipped)"] }
        if let lane = item.lane { header += " · lane \(lane)" + (item.dedicated == nil ? "" : " (own accounts)") }
        var lines = ["", header + " · " + (item.waitMs > 0 ? "waits \(RenewalSchedule.label(milliseconds: item.waitMs))" : "no waiting")]
        for setup in item.setup { lines.append("      setup: \(setup)") }
        let width = String(item.steps.count - 1).count
        for step in item.steps {
            var line = "  #" + String(step.index).leftPadded(to: width) + "  "
            if let skipped = step.skipped {
                line += "SKIPPED \(step.instruction) — \(skipped)"
            } else {
                line += step.instruction
                if let check = step.check { line += "  → check \(check)" }
            }
            lines.append(line)
        }
        for teardown in item.teardown { lines.append("      after: \(teardown)") }
        return lines
    }

    func summaryLines() -> [String] {
        var lines: [String] = []
        let skippedCases = cases.filter { $0.skipped != nil }.count
        let partial = cases.filter { item in item.skipped == nil && item.steps.contains { $0.skipped != nil } }.count
        var summary = "\(cases.count) case\(cases.count == 1 ? "" : "s")"
        var notes: [String] = []
        if skippedCases > 0 { notes.append("\(skippedCases) skipped") }
        if partial > 0 { notes.append("\(partial) with skipped steps") }
        if !notes.isEmpty { summary += " (" + notes.joined(separator: ", ") + ")" }
        let steps = cases.reduce(0) { $0 + $1.steps.count }
        lines.append(summary + " · \(steps) step\(steps == 1 ? "" : "s")")
        lines.append("one after another: " + (sequentialMs > 0 ? "\(Self.words(sequentialMs)) of waiting" : "no waiting")
            + (clockNote == nil ? "" : " (in real time: see the note at the top)"))
        let slowCases = cases.filter { item in item.skipped == nil && item.steps.contains { $0.realTime && $0.skipped == nil && $0.waitMs > 86_400_000 } }
        if !slowCases.isEmpty {
            // Those waits are the same in every environment; the total without them is what a faster clock changes.
            let rest = max(0, sequentialMs - slowCases.reduce(0) { $0 + $1.waitMs })
            lines.append("  without the \(slowCases.count) \(slowCases.count == 1 ? "case that waits" : "cases that wait") days of real time (below): "
                + (rest > 0 ? Self.words(rest) : "no waiting"))
        }
        if accounts > 1 {
            lines.append("over \(accounts) accounts in parallel: \(Self.words(parallelMs))"
                + (groups.count > 1 ? " (the groups one after another, each as long as its longest lane)" : ""))
            if !slowCases.isEmpty {
                lines.append("  without the \(slowCases.count) \(slowCases.count == 1 ? "case that waits" : "cases that wait") days of real time: "
                    + Self.words(parallelMs(excluding: Set(slowCases.map(\.id)))))
            }
        } else {
            lines.append("(--accounts N spreads the cases over N test accounts in parallel)")
        }
        if groups.count > 1 || accounts > 1 {
            for group in groups {
                let busy = group.lanes.filter { !$0.cases.isEmpty }
                    .map { "lane \($0.account): \($0.cases.count) case\($0.cases.count == 1 ? "" : "s"), \(Self.words($0.waitMs))" }
                lines.append("  group \(group.index) (\(Self.label(group.appSettings))): \(Self.words(group.parallelMs))"
                    + (busy.isEmpty ? "" : " — " + busy.joined(separator: "; ")))
            }
        }
        let changes = groups.filter { !$0.settings.isEmpty }.count
        if changes > 0 && environment != EnvironmentKind.xcode.name {
            lines.append("plus up to 1 hour after each of the \(changes) App Store Connect change\(changes == 1 ? "" : "s") "
                + "before Sandbox sees it (not included above)")
        }
        if environment == EnvironmentKind.sandbox.name {
            lines.append("test accounts (map each lane's aliases to one Sandbox Apple Account in the --accounts file):")
            for lane in lanes where !lane.sharedAliases.isEmpty {
                lines.append("  lane \(lane.account) shares one account: " + lane.sharedAliases.joined(separator: ", "))
            }
            for item in cases where item.skipped == nil {
                if let dedicated = item.dedicated {
                    lines.append("  \(item.id) has its own: " + item.accounts.joined(separator: ", ") + " — \(dedicated)")
                }
            }
        }
        if environment == EnvironmentKind.testflight.name {
            // A TestFlight purchase history cannot be cleared: a case with accounts of its own needs fresh ones,
            // which no other case may have used, whatever alias the matrix gives them.
            let fresh = cases.filter { $0.skipped == nil && $0.dedicated != nil }.reduce(0) { $0 + Set($1.accounts).count }
            if fresh > 0 {
                lines.append("Apple Accounts: \(fresh) that have not bought this app's products in TestFlight, one for each "
                    + "account alias of each case marked (own accounts), since no other case may use them; the lanes are testers "
                    + "working side by side")
            }
        }
        let slow = slowCases.map(\.id)
        if !slow.isEmpty {
            lines.append("\(slow.count) case\(slow.count == 1 ? "" : "s") wait\(slow.count == 1 ? "s" : "") more than a day of real time "
                + "(advanceTime by, not accelerated in any environment): " + slow.joined(separator: ", "))
        }
        lines.append("Waits are the store's: the time a person takes to perform each step is not included.")
        if !howTo.isEmpty {
            lines.append("How to do it (Apple's pages):")
            for entry in howTo { lines.append("  \(entry.capability): \(entry.how) \(entry.source)") }
        }
        if !sources.isEmpty { lines.append("Clock rules: " + sources.joined(separator: " ")) }
        return lines
    }

    /// A group's app-wide settings in words.
    static func label(_ settings: AppSettings) -> String {
        var parts: [String] = []
        if let days = settings.gracePeriodDays { parts.append(days > 0 ? "billing grace period \(days) days" : "billing grace period off") }
        if let product = settings.priceIncrease { parts.append("price increase of \(product)") }
        return parts.isEmpty ? "no app-wide settings" : parts.joined(separator: ", ")
    }

    static func words(_ milliseconds: Int64) -> String {
        milliseconds > 0 ? RenewalSchedule.label(milliseconds: milliseconds) : "no waiting"
    }
}

private extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
