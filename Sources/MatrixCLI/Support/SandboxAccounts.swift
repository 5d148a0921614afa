import Foundation

/// The accounts file of a guided run (`--accounts FILE`): matrix account aliases mapped to Sandbox Apple
/// Accounts. It holds real e-mail addresses, so it must live outside the repository, and only salted hashes
/// of its identifiers reach evidence.
///
/// Shape: `{"fresh": {"appleAccount": "tester1@example.com"}, "owner": {"appleAccount": "tester2@example.com"}}`.
struct SandboxAccounts {
    /// Apple Account identifier by alias.
    var identifiers: [String: String]

    /// Reads the file, refusing one inside a git work tree.
    /// - Throws: ``CommandFailure``: 66 unreadable, 65 malformed, 64 inside a repository.
    static func load(_ path: String) throws(CommandFailure) -> SandboxAccounts {
        if let repository = enclosingRepository(of: path) {
            throw CommandFailure("\(path) is inside the git work tree \(repository); keep the accounts file (it holds real "
                                 + "Apple Account addresses) outside any repository", code: .usage)
        }
        let bytes = try InputFiles.readArgument(path, what: "accounts file")
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
            throw CommandFailure("\(path) is not a JSON object of aliases, e.g. {\"fresh\": {\"appleAccount\": \"tester@example.com\"}}",
                                 code: .dataError)
        }
        var identifiers: [String: String] = [:]
        for (alias, value) in object {
            guard let entry = value as? [String: Any], let identifier = entry["appleAccount"] as? String, !identifier.isEmpty else {
                throw CommandFailure("\(path): account \"\(alias)\" needs \"appleAccount\" (the Sandbox Apple Account's e-mail)",
                                     code: .dataError)
            }
            identifiers[alias] = identifier
        }
        return SandboxAccounts(identifiers: identifiers)
    }

    /// The top of the git work tree that contains `path`, if any.
    static func enclosingRepository(of path: String) -> String? {
        var directory = URL(fileURLWithPath: path).standardizedFileURL.deletingLastPathComponent()
        while true {
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent(".git").path) { return directory.path }
            let parent = directory.deletingLastPathComponent()
            if parent.path == directory.path { return nil }
            directory = parent
        }
    }
}
