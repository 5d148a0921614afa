import MatrixJSON

/// The values an enum-valued option (or positional argument) takes: what help, errors and completion list, and
/// what ``Arguments/choice(_:)`` accepts.
struct Choices: Sendable {
    /// A value family `keyword:ARGUMENT` such as `sandbox:5`: the keyword is checked here, the argument by the
    /// option's own parser.
    struct Family: Sendable {
        var keyword: String
        /// How errors write the argument: `<3|5|15|30|60>`.
        var argument: String
        /// Complete values offered by completion: `sandbox:3`, `sandbox:5`, ….
        var completions: [String]
    }

    /// The values, in the order errors and completion list them.
    var values: [String]
    /// Families of `keyword:ARGUMENT` values (`--clock`).
    var families: [Family] = []
    /// Also accepted, never offered: old spellings, or names reserved for a later version.
    var aliases: [String: String] = [:]
    /// Values are matched whatever their case.
    var caseInsensitive = false
    /// Other values are accepted too (a certificate file for `--root`): completion offers files besides the
    /// values, and nothing is rejected here.
    var open = false
    /// When the values are too many to list in an error: what one is called and the command that lists them.
    var listedBy: (noun: String, command: String)?

    init(_ values: [String], families: [Family] = [], aliases: [String: String] = [:], caseInsensitive: Bool = false,
         open: Bool = false, listedBy: (noun: String, command: String)? = nil) {
        self.values = values
        self.families = families
        self.aliases = aliases
        self.caseInsensitive = caseInsensitive
        self.open = open
        self.listedBy = listedBy
    }

    /// The raw values of an enum's cases.
    init<Value: RawRepresentable & CaseIterable>(_ type: Value.Type, caseInsensitive: Bool = false,
                                                 listedBy: (noun: String, command: String)? = nil) where Value.RawValue == String {
        self.init(Value.allCases.map(\.rawValue), caseInsensitive: caseInsensitive, listedBy: listedBy)
    }

    /// What completion offers: the values, then every family's values.
    var completions: [String] {
        values + families.flatMap(\.completions)
    }

    /// `text` as one of the values (in the values' own case), or `nil` when it is none of them. A value of a
    /// family is returned as it is.
    func match(_ text: String) -> String? {
        if values.contains(text) { return text }
        if let canonical = aliases[caseInsensitive ? text.lowercased() : text] { return canonical }
        if caseInsensitive, let value = values.first(where: { $0.lowercased() == text.lowercased() }) { return value }
        if let colon = text.firstIndex(of: ":") {
            let keyword = text[..<colon]
            if families.contains(where: { caseInsensitive ? $0.keyword.lowercased() == keyword.lowercased() : $0.keyword == keyword }) {
                return text
            }
        }
        return nil
    }

    /// The usage error for `text`, which is not a value of `option`: the values, and the nearest as a
    /// "did you mean" when one is close.
    func rejection(_ text: String, for option: String) -> CommandFailure {
        let candidates = completions
        let nearest = caseInsensitive
            ? Suggestion.nearest(text.lowercased(), among: candidates.map { $0.lowercased() }).flatMap { near in candidates.first { $0.lowercased() == near } }
            : Suggestion.nearest(text, among: candidates)
        let hint = nearest.map { "; did you mean \($0)?" } ?? ""
        if let listedBy {
            return .usage("unknown \(listedBy.noun) \"\(text)\"\(hint) (see `\(listedBy.command)`)")
        }
        return .usage("\(option) must be one of \(listing), not \"\(text)\"\(hint)")
    }

    /// The values as an error lists them, families with their argument: `real, sandbox, sandbox:<3|5|15|30|60>`.
    var listing: String {
        var shown: [String] = []
        for value in values {
            shown.append(value)
            if let family = families.first(where: { $0.keyword == value }) { shown.append("\(family.keyword):\(family.argument)") }
        }
        for family in families where !values.contains(family.keyword) { shown.append("\(family.keyword):\(family.argument)") }
        return shown.joined(separator: ", ")
    }
}
