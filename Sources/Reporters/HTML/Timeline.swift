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

    /// The `<svg>` element for `points` (``points``), appended to `svg`, which is handed to `flush` whenever it
    /// holds more than ``HTMLReport/flushSize`` bytes, so that a case of many thousand steps is never one buffer.
    func render(_ points: [Point], into svg: inout MarkupBuffer, flush: (inout MarkupBuffer) throws -> Void) rethrows {
        guard let lastPoint = points.last else { return }
        let width = lastPoint.x + Self.tailWidth + Self.right
        svg.append("<svg class=\"timeline\" width=\"")
        svg.int(width)
        svg.append("\" height=\"")
        svg.int(height)
        svg.append("\" viewBox=\"0 0 ")
        svg.int(width)
        svg.append(" ")
        svg.int(height)
        svg.append("\" role=\"img\" aria-labelledby=\"timeline-")
        svg.int(index)
        svg.append("-title\">\n<title id=\"timeline-")
        svg.int(index)
        svg.append("-title\">Timeline of case ")
        svg.text(matrixCase.id)
        svg.append(" over store time</title>\n")
        for (i, point) in points.enumerated() where record(point).verdict == .fail || record(point).verdict == .error {
            let next = i + 1 < points.count ? points[i + 1].x : point.x + Self.tailWidth
            rect("failing-column", x: point.x - 10, y: markerY - 14, width: next - point.x + 10, height: axisY - markerY + 14, into: &svg)
        }
        text("row-label", x: Self.left - 8, y: expectedY + 17, anchor: "end", "expected", into: &svg)
        text("row-label", x: Self.left - 8, y: observedY + 17, anchor: "end", "observed", into: &svg)
        svg.append("<line class=\"axis\" x1=\"")
        svg.int(Self.left)
        svg.append("\" y1=\"")
        svg.int(axisY)
        svg.append("\" x2=\"")
        svg.int(width - Self.right)
        svg.append("\" y2=\"")
        svg.int(axisY)
        svg.append("\"/>\n")
        let start = points.compactMap(\.time).min()
        for (i, point) in points.enumerated() {
            let end = i + 1 < points.count ? points[i + 1].x : point.x + Self.tailWidth
            band(expected: true, point: point, end: end, into: &svg)
            band(expected: false, point: point, end: end, into: &svg)
            line("guide", x: point.x, y1: markerY, y2: axisY, into: &svg)
            if i == 0 || points[i - 1].time != point.time {
                line("tick", x: point.x, y1: axisY, y2: axisY + 5, into: &svg)
                let label = point.time.flatMap { time in start.map { StepText.elapsed(from: $0, to: time) } } ?? "no store time"
                text("tick-label", x: point.x, y: axisY + 17, anchor: "middle", label, into: &svg)
            }
            marker(point, into: &svg)
            if svg.bytes.count > HTMLReport.flushSize { try flush(&svg) }
        }
        svg.append("</svg>")
    }

    private func marker(_ point: Point, into svg: inout MarkupBuffer) {
        let record = self.record(point)
        let failing = record.verdict == .fail || record.verdict == .error
        let x = point.x
        let y = markerY
        svg.append("<g class=\"step v-")
        svg.raw(record.verdict.rawValue)
        svg.append("\" data-step=\"")
        svg.int(record.step)
        svg.append("\" data-x=\"")
        svg.int(x)
        svg.append("\"")
        if let time = point.time {
            svg.append(" data-store-time=\"")
            svg.int64(time)
            svg.append("\"")
        }
        // The tooltip: `step N: <step> — <VERDICT>[ — store time <time>][ — <reason>]`.
        svg.append("><title>step ")
        svg.int(record.step)
        svg.append(": ")
        svg.text(StepText.describe(record.action))
        svg.append(" — ")
        svg.text(StepText.label(record.verdict))
        if let time = point.time {
            svg.append(" — store time ")
            svg.text(StepText.storeTimeText(time))
        }
        if let reason = record.reason {
            svg.append(" — ")
            svg.text(reason)
        }
        svg.append("</title>")
        switch record.verdict {
        case .error:
            svg.append("<rect class=\"marker\" x=\"")
            svg.int(x - 6)
            svg.append("\" y=\"")
            svg.int(y - 6)
            svg.append("\" width=\"12\" height=\"12\"/>")
        default:
            svg.append("<circle class=\"marker\" cx=\"")
            svg.int(x)
            svg.append("\" cy=\"")
            svg.int(y)
            svg.append("\" r=\"6\"/>")
        }
        svg.append(failing ? "<text class=\"action failing\" x=\"" : "<text class=\"action\" x=\"")
        svg.int(x + 2)
        svg.append("\" y=\"")
        svg.int(y - 12)
        svg.append("\" transform=\"rotate(-35 ")
        svg.int(x + 2)
        svg.append(" ")
        svg.int(y - 12)
        svg.append(")\">")
        svg.text(record.action.action.rawValue)
        svg.append("</text></g>\n")
    }

    private func band(expected: Bool, point: Point, end: Int, into svg: inout MarkupBuffer) {
        let record = self.record(point)
        let y = expected ? expectedY : observedY
        let width = max(1, end - point.x)
        let tiers: [String]? = expected ? record.expected?.access : record.observed?.access
        let row: StaticString = expected ? "expected" : "observed"
        let accessDiffers = !expected && record.verdict == .fail
            && StepText.comparisons(record).contains { $0.field == "access" && $0.differs }
        var sorted: [String] = []
        let kind: StaticString
        if let tiers {
            sorted = tiers.sorted()
            kind = sorted.isEmpty ? " empty" : " tiers"
        } else {
            kind = expected ? " unjudged" : " unobserved"
        }
        svg.append("<g class=\"band")
        svg.append(kind)
        if accessDiffers { svg.append(" mismatch") }
        svg.append("\" data-row=\"")
        svg.append(row)
        svg.append("\" data-step=\"")
        svg.int(record.step)
        svg.append("\"><title>")
        let label: String
        if tiers != nil {
            svg.append(row)
            svg.append(" access after step ")
            svg.int(record.step)
            svg.append(": ")
            svg.text(Judge.render(sorted))
            // Plain names as they are; one that could read as two (a comma, a quote) as Judge renders every name.
            label = sorted.isEmpty ? "none" : sorted.map { Self.isPlain($0) ? $0 : Judge.render(name: $0) }.joined(separator: ", ")
        } else {
            svg.append("step ")
            svg.int(record.step)
            svg.append(expected ? " does not judge access" : ": access not observed")
            label = expected ? "" : "—"
        }
        svg.append("</title><rect x=\"")
        svg.int(point.x)
        svg.append("\" y=\"")
        svg.int(y)
        svg.append("\" width=\"")
        svg.int(width)
        svg.append("\" height=\"")
        svg.int(Self.bandHeight)
        svg.append("\"")
        if !sorted.isEmpty {
            svg.append(" style=\"fill:")
            svg.raw(Self.colour(for: sorted))
            svg.append("\"")
        }
        svg.append("/>")
        let fitted = Self.fit(label, width: width - 8)
        if !fitted.isEmpty {
            svg.append("<text x=\"")
            svg.int(point.x + 4)
            svg.append("\" y=\"")
            svg.int(y + 17)
            svg.append("\">")
            svg.text(fitted)
            svg.append("</text>")
        }
        svg.append("</g>\n")
    }

    private func rect(_ cls: StaticString, x: Int, y: Int, width: Int, height: Int, into svg: inout MarkupBuffer) {
        svg.append("<rect class=\"")
        svg.append(cls)
        svg.append("\" x=\"")
        svg.int(x)
        svg.append("\" y=\"")
        svg.int(y)
        svg.append("\" width=\"")
        svg.int(width)
        svg.append("\" height=\"")
        svg.int(height)
        svg.append("\"/>\n")
    }

    private func line(_ cls: StaticString, x: Int, y1: Int, y2: Int, into svg: inout MarkupBuffer) {
        svg.append("<line class=\"")
        svg.append(cls)
        svg.append("\" x1=\"")
        svg.int(x)
        svg.append("\" y1=\"")
        svg.int(y1)
        svg.append("\" x2=\"")
        svg.int(x)
        svg.append("\" y2=\"")
        svg.int(y2)
        svg.append("\"/>\n")
    }

    private func text(_ cls: StaticString, x: Int, y: Int, anchor: StaticString, _ content: String, into svg: inout MarkupBuffer) {
        svg.append("<text class=\"")
        svg.append(cls)
        svg.append("\" x=\"")
        svg.int(x)
        svg.append("\" y=\"")
        svg.int(y)
        svg.append("\" text-anchor=\"")
        svg.append(anchor)
        svg.append("\">")
        svg.text(content)
        svg.append("</text>\n")
    }

    /// `label`, cut with `…` to fit `width` pixels at about 6.5 px a character; empty when nothing fits.
    static func fit(_ label: String, width: Int) -> String {
        let capacity = Int(Double(width) / 6.5)
        if label.count <= capacity { return label }
        if capacity < 2 { return "" }
        return String(label.prefix(capacity - 1)) + "…"
    }

    /// A fill colour for a set of tiers, the same for the same set everywhere in the report.
    /// Whether a tier name shows as itself in a label: no comma, quote, backslash, control character or
    /// leading or trailing space.
    static func isPlain(_ name: String) -> Bool {
        !name.isEmpty && name.trimmingCharacters(in: .whitespaces) == name
            && !name.unicodeScalars.contains { $0 == "," || $0 == "\"" || $0 == "\\" || $0.value < 0x20 || $0.value == 0x7f }
    }

    static func colour(for tiers: [String]) -> String {
        let palette = ["#a5c8ec", "#a8d5a2", "#d7b5d8", "#f9c58d", "#a8dcd9", "#f3e19b", "#d2b9a6", "#ffc4cb"]
        var hash: UInt32 = 2_166_136_261
        for byte in tiers.joined(separator: "\u{0}").utf8 {
            hash = (hash ^ UInt32(byte)) &* 16_777_619
        }
        return palette[Int(hash % UInt32(palette.count))]
    }
}
