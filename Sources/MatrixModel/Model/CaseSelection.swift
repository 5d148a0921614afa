import MatrixJSON

/// Which of a matrix's cases a run, plan or score takes: by case id (globs allowed), kind, tag, or a profile the
/// matrix names (docs/matrix-format.md, "Profiles and selecting cases").
///
/// Values of one criterion are alternatives, criteria combine: `--case 'refund/*' --case 'restore/*' --tag smoke`
/// takes the refund and restore cases tagged `smoke`. A profile is a selection written in the matrix; named
/// with other criteria, a case must match both. The empty selection takes every case.
public struct CaseSelection: Sendable, Hashable, Codable {
    /// The matrix profile the selection starts from (`profiles` in the matrix), if any.
    public var profile: String?
    /// Case ids or glob patterns: `*` matches any run of characters (`/` included), `?` one character.
    public var cases: [String]
    /// Case kinds (`refund`, `renewal`, …).
    public var kinds: [String]
    /// Case tags (`tags` of a case).
    public var tags: [String]

    public init(profile: String? = nil, cases: [String] = [], kinds: [String] = [], tags: [String] = []) {
        self.profile = profile
        self.cases = cases
        self.kinds = kinds
        self.tags = tags
    }

    /// Whether the selection takes every case.
    public var isEmpty: Bool { profile == nil && cases.isEmpty && kinds.isEmpty && tags.isEmpty }

    /// The selection in words for reports and summaries: `profile smoke, kind refund, tag release`.
    public var summary: String {
        var parts: [String] = []
        if let profile { parts.append("profile \(profile)") }
        if !cases.isEmpty { parts.append("case " + cases.joined(separator: " or ")) }
        if !kinds.isEmpty { parts.append("kind " + kinds.joined(separator: " or ")) }
        if !tags.isEmpty { parts.append("tag " + tags.joined(separator: " or ")) }
        return parts.isEmpty ? "every case" : parts.joined(separator: ", ")
    }

    /// Whether `matrixCase` matches the criteria written here (not the profile's; see ``resolve(in:)``).
    public func matches(_ matrixCase: MatrixCase) -> Bool {
        (cases.isEmpty || cases.contains { Self.glob($0, matches: matrixCase.id) })
            && (kinds.isEmpty || kinds.contains(matrixCase.kind))
            && (tags.isEmpty || !Set(tags).isDisjoint(with: matrixCase.tags))
    }

    /// Why a selection cannot be made, with the nearest name when there is one.
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// A sentence saying what matched nothing and what there is.
        public var message: String
        public var description: String { message }
    }

    /// The indices of the selected cases, in matrix order.
    ///
    /// - Throws: ``Problem`` for a profile the matrix does not name, a case pattern, kind or tag that matches no
    ///   case of the matrix (a likely typo, with a "did you mean"), and a selection that leaves no case.
    public func resolve(in matrix: Matrix) throws(Problem) -> [Int] {
        var criteria = [self]
        if let profile {
            guard let named = matrix.profiles.first(where: { $0.name == profile }) else {
                let names = matrix.profiles.map(\.name)
                let hint = Suggestion.nearest(profile, among: names).map { "; did you mean \"\($0)\"?" }
                    ?? (names.isEmpty ? "; the matrix defines no profiles (\"profiles\" in the matrix)" : "; its profiles are " + names.joined(separator: ", "))
                throw Problem(message: "the matrix has no profile \"\(profile)\"\(hint)")
            }
            criteria.append(named.selection)
        }
        for selection in criteria { try selection.checkNames(in: matrix) }
        let selected = matrix.cases.indices.filter { index in criteria.allSatisfy { $0.matches(matrix.cases[index]) } }
        guard !selected.isEmpty else {
            throw Problem(message: "no case matches \(summary)" + (profile == nil ? "" : " (and the profile's own criteria)"))
        }
        return selected
    }

    /// Every pattern, kind and tag names something in the matrix.
    func checkNames(in matrix: Matrix) throws(Problem) {
        if let first = problems(among: matrix.cases).first { throw Problem(message: first.message) }
    }

    /// One criterion of a selection.
    package enum Criterion: String, Sendable {
        case cases, kinds, tags
    }

    /// Each case pattern, kind and tag that matches no case of `cases`, as (criterion, index in it, message with
    /// a "did you mean" when one is near), in the order written.
    package func problems(among cases: [MatrixCase]) -> [(criterion: Criterion, index: Int, message: String)] {
        var found: [(Criterion, Int, String)] = []
        let ids = cases.map(\.id)
        for (index, pattern) in self.cases.enumerated() where !ids.contains(where: { Self.glob(pattern, matches: $0) }) {
            let hint = Suggestion.nearest(pattern, among: ids).map { "; did you mean \"\($0)\"?" } ?? "; patterns take * and ?, e.g. \"refund/*\""
            found.append((.cases, index, "no case id matches \"\(pattern)\"\(hint)"))
        }
        let kinds = Set(cases.map(\.kind)).sorted()
        for (index, kind) in self.kinds.enumerated() where !kinds.contains(kind) {
            let hint = Suggestion.nearest(kind, among: kinds).map { "; did you mean \"\($0)\"?" } ?? "; its kinds are " + kinds.joined(separator: ", ")
            found.append((.kinds, index, "no case of the matrix has kind \"\(kind)\"\(hint)"))
        }
        let tags = Set(cases.flatMap(\.tags)).sorted()
        for (index, tag) in self.tags.enumerated() where !tags.contains(tag) {
            let hint = Suggestion.nearest(tag, among: tags).map { "; did you mean \"\($0)\"?" }
                ?? (tags.isEmpty ? "; no case has tags (\"tags\" of a case)" : "; its tags are " + tags.joined(separator: ", "))
            found.append((.tags, index, "no case of the matrix has tag \"\(tag)\"\(hint)"))
        }
        return found
    }

    /// Whether `pattern` matches the whole of `text`: `*` any run of characters, `?` one character, anything else
    /// itself.
    public static func glob(_ pattern: String, matches text: String) -> Bool {
        let p = Array(pattern.unicodeScalars)
        let t = Array(text.unicodeScalars)
        // Iterative matching with one backtrack point per star: linear in practice, never exponential.
        var pi = 0, ti = 0
        var star: Int?
        var resume = 0
        while ti < t.count {
            if pi < p.count, p[pi] == "?" || (p[pi] != "*" && p[pi] == t[ti]) {
                pi += 1
                ti += 1
            } else if pi < p.count, p[pi] == "*" {
                star = pi
                resume = ti
                pi += 1
            } else if let starAt = star {
                pi = starAt + 1
                resume += 1
                ti = resume
            } else {
                return false
            }
        }
        while pi < p.count, p[pi] == "*" { pi += 1 }
        return pi == p.count
    }
}

/// A named selection of cases written in the matrix (`profiles`), such as `smoke` for a TestFlight pass.
public struct CaseProfile: Sendable, Hashable, Codable {
    /// The profile's name, as `--profile` takes it.
    public var name: String
    /// What the profile is for, in words.
    public var description: String?
    /// Its criteria (``CaseSelection/profile`` is `nil`).
    public var selection: CaseSelection

    public init(name: String, description: String? = nil, selection: CaseSelection) {
        self.name = name
        self.description = description
        self.selection = selection
    }
}
