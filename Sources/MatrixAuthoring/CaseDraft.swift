import MatrixJSON

/// A case `matrix init` writes, with the accounts it needs.
struct CaseDraft {
    /// An account the case uses.
    struct AccountDraft {
        var alias: String
        var description: String
        var owns: [String] = []
        var familyOrganizer: String?
    }

    var id: String
    var kind: String
    /// The alias of the account the steps act on.
    var account: String
    var description: String
    /// The case's `store` settings, in order.
    var store: [(String, JSONText)] = []
    /// Every account the case uses, in the order they are listed under `accounts`.
    var accounts: [AccountDraft]
    var steps: [JSONText]

    var json: JSONText {
        var members: [(String, JSONText)] = [
            ("id", .string(id)), ("kind", .string(kind)), ("account", .string(account)), ("description", .string(description)),
        ]
        if !store.isEmpty { members.append(("store", .inline(.object(store)))) }
        members.append(("steps", .array(steps)))
        return .object(members)
    }
}

extension CaseDraft.AccountDraft {
    var json: JSONText {
        var members: [(String, JSONText)] = [("description", .string(description))]
        if !owns.isEmpty { members.append(("owns", .array(owns.map(JSONText.string)))) }
        if let familyOrganizer { members.append(("familyOrganizer", .string(familyOrganizer))) }
        return .object(members)
    }
}
