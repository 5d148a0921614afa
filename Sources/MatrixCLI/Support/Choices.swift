/// The values an enum-valued option (or positional argument) takes: what help, errors and completion list.
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
}
