import MatrixModel

/// A case's steps drawn over store time as an inline SVG (no external references, no script).
///
/// From top to bottom: each step's action as a rotated label above a marker (green pass, red fail, red square
/// error, grey hollow skipped or blocked; failing steps also get a red column); the expected access band and
/// the observed access band, one segment per step from that step to the next, coloured and labelled with the
/// tier names when the tier set is non-empty; and the store-time axis, ticked where store time moved, labelled
/// with the time elapsed since the case's first step.
///
/// The x axis is store time (`storeTime`, else `observed.storeTime`, ms since 1970; a step without one takes
/// the time of the step before it). So that steps at the same instant stay readable, every step also gets at
/// least ``minimumGap`` pixels after the one before: x is monotonic in store time and the time elapsed shares
/// the rest of the width in proportion.
struct Timeline {
    /// Pixels between consecutive steps before any time has elapsed.
    static let minimumGap = 56
    /// Width of the last step's band segment.
    static let tailWidth = 72
    /// Width given to elapsed store time, at least.
    static let minimumTimeWidth = 480
    static let left = 88
    static let right = 24
    static let bandHeight = 26

    /// The marker row: below the rotated action labels, whose height depends on the longest one.
    let markerY: Int
    var expectedY: Int { markerY + 16 }
    var observedY: Int { expectedY + Self.bandHeight + 6 }
    var axisY: Int { observedY + Self.bandHeight + 12 }
    var height: Int { axisY + 24 }

    /// One step placed on the axis: the index of its record in the case (records are large to copy).
    struct Point {
        var index: Int
        var x: Int
        /// The store time used, ms since 1970 (carried from the step before when the step has none).
        var time: Int64?
    }

    let matrixCase: CaseEvidence
    /// Used to keep SVG ids unique in the page.
    let index: Int

    init(matrixCase: CaseEvidence, index: Int) {
        self.matrixCase = matrixCase
        self.index = index
        let longest = matrixCase.records.map { $0.action.action.rawValue.count }.max() ?? 0
        // Labels are rotated by 35°: their height is about length × 6.6 px × sin 35°.
        markerY = 24 + Int((Double(longest) * 6.6 * 0.574).rounded())
    }

    /// The steps with their positions.
    var points: [Point] {
        let records = matrixCase.records
        var times: [Int64?] = []
        var last: Int64? = nil
        for record in records {
            last = StepText.storeTime(record) ?? last
            times.append(last)
        }
        let firstKnown = times.compactMap { $0 }.first
        times = times.map { $0 ?? firstKnown }
        let start = times.compactMap { $0 }.min() ?? 0
        // In Double: store times come from evidence, which may hold any Int64.
        let span = Double(times.compactMap { $0 }.max() ?? start) - Double(start)
        var points: [Point] = []
        for i in records.indices {
            var x = Self.left + i * Self.minimumGap
            if span > 0, let time = times[i] {
                x += Int(((Double(time) - Double(start)) / span * Double(Self.timeWidth(records.count))).rounded())
            }
            // Store time should only move forward; if an environment reports it going back, keep step order.
            if let previous = points.last { x = max(x, previous.x + Self.minimumGap) }
            points.append(Point(index: i, x: x, time: times[i]))
        }
        return points
    }

    /// Width given to elapsed store time for `count` steps.
    static func timeWidth(_ count: Int) -> Int {
        max(minimumTimeWidth, 900 - count * minimumGap)
    }

    /// The record of the step at `point`.
    func record(_ point: Point) -> EvidenceRecord {
        matrixCase.records[point.index]
    }

    /// The `<svg>` element, handed to `write` in pieces (a step's at a time), so that a case of many thousand
    /// steps is never one string.
    func render(into write: (String) throws -> Void) rethrows {
        let points = self.points
        guard let lastPoint = points.last else { return }
        let width = lastPoint.x + Self.tailWidth + Self.right
        let titleID = "timeline-\(index)-title"
        var svg = "<svg class=\"timeline\" width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\""
            + " role=\"img\" aria-labelledby=\"\(titleID)\">\n"
        svg += "<title id=\"\(titleID)\">\(Markup.text("Timeline of case \(matrixCase.id) over store time"))</title>\n"
        for (i, point) in points.enumerated() where record(point).verdict == .fail || record(point).verdict == .error {
            let next = i + 1 < points.count ? points[i + 1].x : point.x + Self.tailWidth
            svg += rect("failing-column", x: point.x - 10, y: markerY - 14, width: next - point.x + 10,
                        height: axisY - markerY + 14)
        }
        svg += text("row-label", x: Self.left - 8, y: expectedY + 17, anchor: "end", "expected")
        svg += text("row-label", x: Self.left - 8, y: observedY + 17, anchor: "end", "observed")
        svg += "<line class=\"axis\" x1=\"\(Self.left)\" y1=\"\(axisY)\" x2=\"\(width - Self.right)\" y2=\"\(axisY)\"/>\n"
        try write(svg)
        let start = points.compactMap(\.time).min()
        for (i, point) in points.enumerated() {
            let end = i + 1 < points.count ? points[i + 1].x : point.x + Self.tailWidth
            var svg = band(expected: true, point: point, end: end)
            svg += band(expected: false, point: point, end: end)
            svg += "<line class=\"guide\" x1=\"\(point.x)\" y1=\"\(markerY)\" x2=\"\(point.x)\" y2=\"\(axisY)\"/>\n"
            if i == 0 || points[i - 1].time != point.time {
                svg += "<line class=\"tick\" x1=\"\(point.x)\" y1=\"\(axisY)\" x2=\"\(point.x)\" y2=\"\(axisY + 5)\"/>\n"
                let label = point.time.flatMap { time in start.map { StepText.elapsed(from: $0, to: time) } } ?? "no store time"
                svg += text("tick-label", x: point.x, y: axisY + 17, anchor: "middle", label)
            }
            svg += marker(point)
            try write(svg)
        }
        try write("</svg>")
    }

    private func marker(_ point: Point) -> String {
        let record = self.record(point)
        let failing = record.verdict == .fail || record.verdict == .error
        var tooltip = "step \(record.step): \(StepText.describe(record.action)) — \(StepText.label(record.verdict))"
        if let time = point.time { tooltip += " — store time \(StepText.storeTimeText(time))" }
        if let reason = record.reason { tooltip += " — \(reason)" }
        let x = point.x
        let y = markerY
        var svg = "<g class=\"step v-\(record.verdict.rawValue)\" data-step=\"\(record.step)\" data-x=\"\(x)\""
        if let time = point.time { svg += " data-store-time=\"\(time)\"" }
        svg += "><title>\(Markup.text(tooltip))</title>"
        switch record.verdict {
        case .error:
            svg += "<rect class=\"marker\" x=\"\(x - 6)\" y=\"\(y - 6)\" width=\"12\" height=\"12\"/>"
        default:
            svg += "<circle class=\"marker\" cx=\"\(x)\" cy=\"\(y)\" r=\"6\"/>"
        }
        svg += "<text class=\"action\(failing ? " failing" : "")\" x=\"\(x + 2)\" y=\"\(y - 12)\""
            + " transform=\"rotate(-35 \(x + 2) \(y - 12))\">\(Markup.text(record.action.action.rawValue))</text>"
        return svg + "</g>\n"
    }

    private func band(expected: Bool, point: Point, end: Int) -> String {
        let record = self.record(point)
        let y = expected ? expectedY : observedY
        let width = max(1, end - point.x)
        let tiers: [String]? = expected ? record.expected?.access : record.observed?.access
        let row = expected ? "expected" : "observed"
        let accessDiffers = !expected && record.verdict == .fail
            && StepText.comparisons(record).contains { $0.field == "access" && $0.differs }
        var classes = "band"
        let label: String
        let tooltip: String
        var style = ""
        if let tiers {
            let sorted = tiers.sorted()
            if sorted.isEmpty {
                classes += " empty"
                label = "none"
            } else {
                classes += " tiers"
                label = sorted.joined(separator: ", ")
                style = " style=\"fill:\(Self.colour(for: sorted))\""
            }
            tooltip = "\(row) access after step \(record.step): \(Judge.render(sorted))"
        } else {
            classes += expected ? " unjudged" : " unobserved"
            label = expected ? "" : "—"
            tooltip = expected ? "step \(record.step) does not judge access" : "step \(record.step): access not observed"
        }
        if accessDiffers { classes += " mismatch" }
        var svg = "<g class=\"\(classes)\" data-row=\"\(row)\" data-step=\"\(record.step)\"><title>\(Markup.text(tooltip))</title>"
        svg += "<rect x=\"\(point.x)\" y=\"\(y)\" width=\"\(width)\" height=\"\(Self.bandHeight)\"\(style)/>"
        let fitted = Self.fit(label, width: width - 8)
        if !fitted.isEmpty {
            svg += "<text x=\"\(point.x + 4)\" y=\"\(y + 17)\">\(Markup.text(fitted))</text>"
        }
        return svg + "</g>\n"
    }

    private func rect(_ cls: String, x: Int, y: Int, width: Int, height: Int) -> String {
        "<rect class=\"\(cls)\" x=\"\(x)\" y=\"\(y)\" width=\"\(width)\" height=\"\(height)\"/>\n"
    }

    private func text(_ cls: String, x: Int, y: Int, anchor: String, _ content: String) -> String {
        "<text class=\"\(cls)\" x=\"\(x)\" y=\"\(y)\" text-anchor=\"\(anchor)\">\(Markup.text(content))</text>\n"
    }

    /// `label`, cut with `…` to fit `width` pixels at about 6.5 px a character; empty when nothing fits.
    static func fit(_ label: String, width: Int) -> String {
        let capacity = Int(Double(width) / 6.5)
        if label.count <= capacity { return label }
        if capacity < 2 { return "" }
        return String(label.prefix(capacity - 1)) + "…"
    }

    /// A fill colour for a set of tiers, the same for the same set everywhere in the report.
    static func colour(for tiers: [String]) -> String {
        let palette = ["#a5c8ec", "#a8d5a2", "#d7b5d8", "#f9c58d", "#a8dcd9", "#f3e19b", "#d2b9a6", "#ffc4cb"]
        var hash: UInt32 = 2_166_136_261
        for byte in tiers.joined(separator: "\u{0}").utf8 {
            hash = (hash ^ UInt32(byte)) &* 16_777_619
        }
        return palette[Int(hash % UInt32(palette.count))]
    }
}
