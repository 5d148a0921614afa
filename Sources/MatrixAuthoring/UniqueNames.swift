/// Hands out names that are unique within one namespace (tiers, case IDs…), in the order asked.
struct UniqueNames {
    private(set) var used: Set<String> = []

    /// The first candidate not yet used; when all are used, the first with the smallest free `-2`, `-3`… suffix.
    mutating func claim(_ candidates: [String]) -> String {
        let usable = candidates.filter { !$0.isEmpty }
        if let free = usable.first(where: { !used.contains($0) }) {
            used.insert(free)
            return free
        }
        let base = usable.first ?? "item"
        var number = 2
        while used.contains("\(base)-\(number)") { number += 1 }
        used.insert("\(base)-\(number)")
        return "\(base)-\(number)"
    }
}
