import Testing
@testable import ServerEnvironment

@Suite("Backend URLs: loopback only")
struct LoopbackURLTests {
    @Test("an http URL on 127.0.0.1 or localhost with a port is taken; {port} is the port --server picked")
    func accepted() throws {
        let url = try LoopbackURL.parse("http://localhost:8080/access/{account}?t={appAccountToken}", option: "--access-url", pickedPort: nil,
                                        placeholders: LoopbackURL.accessPlaceholders)
        #expect(url.port == 8080 && url.target == "/access/{account}?t={appAccountToken}")
        #expect(url.filled(["account": "fresh purchase/1", "appAccountToken": "ab-12"]) == "/access/fresh%20purchase%2F1?t=ab-12")
        let picked = try LoopbackURL.parse("http://127.0.0.1:{port}", option: "--notify-url", pickedPort: 4321)
        #expect(picked.description == "http://127.0.0.1:4321/")
    }

    @Test("anything that would leave this machine, or is not understood, is refused with the option named", arguments: [
        ("https://127.0.0.1:8080/n", "--notify-url must be an http:// URL on 127.0.0.1"),
        ("http://example.com:8080/n", "--notify-url must name 127.0.0.1 or localhost"),
        ("http://10.0.0.1:8080/n", "--notify-url must name 127.0.0.1 or localhost"),
        ("http://127.0.0.1/n", "--notify-url needs an explicit port"),
        ("http://user@127.0.0.1:1/n", "--notify-url must not carry a user"),
        ("http://127.0.0.1:0/n", "--notify-url: the port must be 1–65535"),
        ("http://127.0.0.1:{port}/n", "--notify-url: {port} is filled in only when --server starts the backend"),
        ("http://127.0.0.1:1/{account}", "--notify-url: unknown placeholder {account} (none is allowed here)"),
        ("http://127.0.0.1:1/a b", "--notify-url: the path and query must be printable ASCII"),
        ("http://127.0.0.1:1/a#b", "--notify-url must not have a fragment"),
    ])
    func refused(_ text: String, _ message: String) {
        #expect {
            try LoopbackURL.parse(text, option: "--notify-url", pickedPort: nil)
        } throws: { error in
            (error as? ServerSetupError)?.message.hasPrefix(message) == true
        }
    }

    @Test("the access URL's placeholders are account, appAccountToken and originalTransactionId only")
    func accessPlaceholders() {
        #expect(throws: ServerSetupError.self) {
            try LoopbackURL.parse("http://127.0.0.1:1/{user}", option: "--access-url", pickedPort: nil, placeholders: LoopbackURL.accessPlaceholders)
        }
    }

    @Test("an access answer must be an object with an array of tier names")
    func accessAnswers() throws {
        #expect(try AccessChecker.parse(Array(#"{"access": ["pro", "plus"], "user": 1}"#.utf8), url: "u") == ["pro", "plus"])
        for body in [#"["pro"]"#, #"{"access": "pro"}"#, #"{"access": [1]}"#, "<html>", #"{"access": [""]}"#] {
            #expect(throws: (any Error).self, "\(body)") { try AccessChecker.parse(Array(body.utf8), url: "u") }
        }
    }

    @Test("an access answer that names access twice is refused, whichever copy a reader would keep",
          arguments: [#"{"access": ["pro"], "access": []}"#, #"{"access": [], "access": ["pro"]}"#, #"{"access": ["pro"], "x": {"a": 1, "a": 2}}"#])
    func duplicateAccess(_ body: String) throws {
        do {
            let tiers = try AccessChecker.parse(Array(body.utf8), url: "u")
            Issue.record("read as \(tiers)")
        } catch {
            #expect(error.message.contains("names a member twice"), "\(error.message)")
        }
    }

    @Test("appAccountTokens are lowercase UUIDs, stable for an account of a case, different across cases, accounts and runs")
    func tokens() {
        let token = AppAccountTokens.token(run: 1, caseID: "c", account: "a")
        #expect(token == AppAccountTokens.token(run: 1, caseID: "c", account: "a"))
        #expect(Set([token, AppAccountTokens.token(run: 2, caseID: "c", account: "a"), AppAccountTokens.token(run: 1, caseID: "d", account: "a"),
                     AppAccountTokens.token(run: 1, caseID: "c", account: "b")]).count == 4)
        #expect(token.count == 36 && token == token.lowercased() && token.split(separator: "-").map(\.count) == [8, 4, 4, 4, 12])
        #expect(Array(token)[14] == "8")
    }
}
