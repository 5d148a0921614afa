import Foundation
import MatrixJSON

/// An accounts file: matrix account aliases mapped to real Sandbox Apple Accounts.
///
/// ```json
/// {
///   "fresh": { "appleAccount": "tester1@example.com" },
///   "owner": { "testerId": "47be9e57-1a3f-49c2-8ce7-af27a977ebb0", "description": "owns pro" }
/// }
/// ```
///
/// Each alias names either the account's e-mail address (`appleAccount`, matched without regard to case
/// against App Store Connect's `acAccountName`) or its App Store Connect id (`testerId`). The file holds
/// personal data: it must lie outside the repository, and nothing here ever puts an address in a message.
public struct SandboxAccountsFile: Sendable {
    /// How an alias names its account.
    public enum Reference: Sendable, Hashable {
        /// By e-mail address.
        case appleAccount(String)
        /// By App Store Connect id.
        case testerId(String)
    }

    /// One alias.
    public struct Entry: Sendable, Hashable {
        /// The alias, as matrices use it.
        public var alias: String
        /// The account it stands for.
        public var reference: Reference
    }

    /// The aliases in file order.
    public var entries: [Entry]

    /// Creates accounts from entries.
    public init(entries: [Entry]) {
        self.entries = entries
    }

    /// Reads an accounts file after checking that it lies outside git work trees.
    ///
    /// - Throws: ``CredentialsError``: `.insideRepository`, `.unreadable`, or `.invalid` with located
    ///   diagnostics.
    public static func load(_ path: String, guard repository: RepositoryGuard) throws(CredentialsError) -> SandboxAccountsFile {
        let (_, bytes) = try PrivateFile.read(path, what: "accounts file", guard: repository)
        let (accounts, diagnostics) = parse(bytes, file: path)
        guard let accounts, !diagnostics.hasErrors else {
            throw CredentialsError(.invalid, "\(path) is not a valid accounts file", diagnostics: diagnostics)
        }
        return accounts
    }

    /// Parses accounts file bytes.
    ///
    /// - Returns: The accounts (`nil` when the file has errors) and every diagnostic; values are never quoted.
    public static func parse(_ bytes: [UInt8], file: String) -> (SandboxAccountsFile?, [Diagnostic]) {
        let sink = DiagnosticCollector(file: file)
        let read = JSONReader.read(bytes, file: file)
        sink.append(contentsOf: read.diagnostics)
        guard let root = read.value, let members = JSONField(root, pointer: "").members(sink) else { return (nil, sink.diagnostics) }
        var entries: [Entry] = []
        for (alias, keyLocation, field) in members {
            if alias.isEmpty { sink.error(.invalidValue, "an alias must not be empty", pointer: field.pointer, at: keyLocation) }
            var fields = ObjectFields(field, sink)
            let account = fields.optional("appleAccount")?.string(sink)
            let testerId = fields.optional("testerId")?.string(sink)
            fields.ignore("description")
            fields.finish()
            switch (account, testerId) {
            case (let account?, nil) where !account.isEmpty:
                entries.append(Entry(alias: alias, reference: .appleAccount(account)))
            case (nil, let id?) where !id.isEmpty:
                entries.append(Entry(alias: alias, reference: .testerId(id)))
            default:
                if fields.isObject {
                    sink.error(.invalidValue, "alias \"\(alias)\" needs exactly one of \"appleAccount\" (the e-mail address) or \"testerId\", not empty",
                               pointer: field.pointer, at: field.location)
                }
            }
        }
        return (sink.hasErrors ? nil : SandboxAccountsFile(entries: entries), sink.diagnostics)
    }

    /// The entry for `alias`.
    public func entry(_ alias: String) -> Entry? {
        entries.first { $0.alias == alias }
    }

    /// The aliases, in file order.
    public var aliases: [String] { entries.map(\.alias) }

    /// Whether `reference` names `tester`.
    public static func matches(_ reference: Reference, _ tester: SandboxTester) -> Bool {
        switch reference {
        case .testerId(let id): tester.id == id
        case .appleAccount(let account): tester.acAccountName?.lowercased() == account.trimmingCharacters(in: .whitespaces).lowercased()
        }
    }

    /// The alias that names `tester`, if any.
    public func alias(of tester: SandboxTester) -> String? {
        entries.first { Self.matches($0.reference, tester) }?.alias
    }
}
