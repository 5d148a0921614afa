import MatrixCore
import StoreSimulator

extension RunPlan {
    /// The plan for people: a header, every case with its steps one line each (waits and environment limits
    /// marked), and the totals one after another and over the accounts in parallel.
    public var text: String {
        var lines: [String] = []
        let environmentName = RunPlanner.Environment(rawValue: environment)?.name ?? environment
        lines.append("plan for \(matrix) in \(environmentName)")
        lines.append("clock \(clock): \(clockSummary)")
        for item in cases {
            lines.append("")
            var header = "\(item.id) · account \(item.account)"
            if item.clock != clock { header += " · clock \(item.clock)" }
            if let skipped = item.skipped {
                lines.append(header + " · SKIPPED: \(skipped)")
                continue
            }
            lines.append(header + " · " + (item.waitMs > 0 ? "waits \(RenewalSchedule.label(milliseconds: item.waitMs))" : "no waiting"))
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
        }
        lines.append("")
        let skippedCases = cases.filter { $0.skipped != nil }.count
        let partial = cases.filter { item in item.skipped == nil && item.steps.contains { $0.skipped != nil } }.count
        var summary = "\(cases.count) case\(cases.count == 1 ? "" : "s")"
        var notes: [String] = []
        if skippedCases > 0 { notes.append("\(skippedCases) skipped") }
        if partial > 0 { notes.append("\(partial) with skipped steps") }
        if !notes.isEmpty { summary += " (" + notes.joined(separator: ", ") + ")" }
        let steps = cases.reduce(0) { $0 + $1.steps.count }
        lines.append(summary + " · \(steps) step\(steps == 1 ? "" : "s")")
        lines.append("one after another: " + (sequentialMs > 0 ? "\(Self.words(sequentialMs)) of waiting" : "no waiting"))
        let busy = lanes.filter { !$0.cases.isEmpty }
        let spread = busy.map { "account \($0.account): \($0.cases.count) case\($0.cases.count == 1 ? "" : "s"), \(Self.words($0.waitMs))" }
        if accounts > 1 {
            lines.append("over \(accounts) accounts in parallel: \(Self.words(parallelMs))"
                + (busy.count > 1 ? " (" + spread.joined(separator: "; ") + ")" : ""))
        } else {
            lines.append("(--accounts N spreads the cases over N test accounts in parallel)")
        }
        let slow = cases.filter { item in item.steps.contains { $0.realTime && $0.skipped == nil && $0.waitMs > 86_400_000 } }.map(\.id)
        if !slow.isEmpty {
            lines.append("\(slow.count) case\(slow.count == 1 ? "" : "s") wait\(slow.count == 1 ? "s" : "") more than a day of real time "
                + "(advanceTime by, not accelerated in any environment): " + slow.joined(separator: ", "))
        }
        lines.append("Waits are the store's: the time a person takes to perform each step is not included.")
        if !sources.isEmpty { lines.append("Clock rules: " + sources.joined(separator: " ")) }
        return lines.joined(separator: "\n") + "\n"
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
