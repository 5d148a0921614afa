import MatrixJSON

extension MatrixDecoder {
    /// A case's `tags`: non-empty strings without spaces, each once.
    func decodeTags(_ field: JSONField) -> [String] {
        var tags: [String] = []
        for (tag, element) in field.strings(sink) ?? [] {
            if tag.isEmpty || tag.contains(where: \.isWhitespace) {
                sink.error(.invalidValue, tag.isEmpty ? "a tag is empty" : "tag \"\(tag)\" has a space", pointer: element.pointer,
                           at: element.location, hint: "tags are single words such as smoke or release-blocker")
            } else if tags.contains(tag) {
                sink.warning(.invalidValue, "tag \"\(tag)\" is given twice", pointer: element.pointer, at: element.location)
            } else {
                tags.append(tag)
            }
        }
        return tags
    }

    /// `profiles`: name → `{"description", "cases", "kinds", "tags"}`, each a selection of the matrix's cases that
    /// must name cases, kinds and tags the matrix has.
    func decodeProfiles(_ field: JSONField, cases: [MatrixCase]) -> [CaseProfile] {
        guard let members = field.members(sink) else { return [] }
        var profiles: [CaseProfile] = []
        for member in members {
            if member.key.isEmpty {
                sink.error(.invalidValue, "a profile name is empty", pointer: member.field.pointer, at: member.keyLocation)
            }
            var fields = ObjectFields(member.field, sink)
            guard fields.isObject else { continue }
            let description = fields.optional("description")?.string(sink)
            var lists: [CaseSelection.Criterion: [(String, JSONField)]] = [:]
            for criterion in [CaseSelection.Criterion.cases, .kinds, .tags] {
                lists[criterion] = fields.optional(criterion.rawValue)?.strings(sink) ?? []
            }
            fields.finish()
            let selection = CaseSelection(cases: lists[.cases, default: []].map(\.0), kinds: lists[.kinds, default: []].map(\.0),
                                          tags: lists[.tags, default: []].map(\.0))
            if selection.isEmpty {
                sink.error(.emptyCollection, "profile \"\(member.key)\" selects nothing", pointer: member.field.pointer,
                           at: member.keyLocation, hint: "give it \"cases\" (ids or patterns such as \"refund/*\"), \"kinds\" or \"tags\"")
            }
            for problem in selection.problems(among: cases) {
                guard let element = lists[problem.criterion]?[problem.index].1 else { continue }
                sink.error(.invalidValue, "profile \"\(member.key)\": \(problem.message)", pointer: element.pointer, at: element.location)
            }
            profiles.append(CaseProfile(name: member.key, description: description, selection: selection))
        }
        return profiles
    }
}
