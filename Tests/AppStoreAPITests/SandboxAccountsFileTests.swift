import Testing
@testable import AppStoreAPI
@testable import MatrixModel

@Suite("Accounts file")
struct SandboxAccountsFileTests {
    func parse(_ text: String) -> (SandboxAccountsFile?, [String]) {
        let (accounts, diagnostics) = SandboxAccountsFile.parse(Array(text.utf8), file: "accounts.json")
        return (accounts, diagnostics.map(\.rendered))
    }

    @Test("Aliases name an Apple Account or a tester id, in file order; a description is allowed")
    func reads() throws {
        let (accounts, diagnostics) = parse(#"{"fresh": {"appleAccount": "A@Example.com"}, "owner": {"testerId": "t2", "description": "owns pro"}}"#)
        #expect(diagnostics.isEmpty)
        let file = try #require(accounts)
        #expect(file.aliases == ["fresh", "owner"])
        #expect(file.entry("owner")?.reference == .testerId("t2"))
        let tester = SandboxTester(id: "t1", acAccountName: "a@example.com")
        #expect(file.alias(of: tester) == "fresh")
        #expect(file.alias(of: SandboxTester(id: "t2")) == "owner")
        #expect(file.alias(of: SandboxTester(id: "t3", acAccountName: "b@example.com")) == nil)
    }

    @Test("Both or neither reference is an error located at the alias, never quoting the address")
    func bothOrNeither() {
        let (accounts, diagnostics) = parse("{\n  \"x\": {\"appleAccount\": \"secret@example.com\", \"testerId\": \"t\"},\n  \"y\": {}\n}")
        #expect(accounts == nil)
        #expect(diagnostics.count == 2)
        #expect(diagnostics[0].hasPrefix("accounts.json:2:8: error: alias \"x\" needs exactly one of"))
        #expect(diagnostics[1].hasPrefix("accounts.json:3:8: error: alias \"y\""))
        #expect(diagnostics.allSatisfy { !$0.contains("secret@example.com") })
    }

    @Test("An unknown key is a warning and the file still reads; a misspelt known key is an error")
    func unknownKey() {
        let (accounts, diagnostics) = parse(#"{"x": {"x-team": "QA", "testerId": "t"}}"#)
        #expect(accounts?.entry("x")?.reference == .testerId("t"))
        #expect(diagnostics.count == 1)
        #expect(diagnostics.first?.contains("warning: unknown key \"x-team\"") == true)
        let (misspelt, errors) = parse(#"{"x": {"appleAcount": "a@example.com", "testerId": "t"}}"#)
        #expect(misspelt == nil)
        #expect(errors.first?.contains("error: unknown key \"appleAcount\"; it would be ignored") == true)
        #expect(errors.first?.contains("did you mean \"appleAccount\"?") == true)
    }

    @Test("A file that is not an object of objects is an error", arguments: ["[]", #"{"x": "a@example.com"}"#, "", "{"])
    func notObjects(text: String) {
        let (accounts, diagnostics) = parse(text)
        #expect(accounts == nil)
        #expect(!diagnostics.isEmpty)
    }
}
