import Foundation
import Testing
@testable import AppStoreAPI
@testable import MatrixCLI
@testable import TestSupport

/// `matrix sandbox` in-process against a stub App Store Connect, plus one run of the built binary.
@Suite("matrix sandbox")
final class SandboxCommandTests {
    static let issuerId = "ISSUER-7d4e-not-for-output"
    static let emails = ["fresh.tester@example.com", "owner.tester@example.com"]

    /// A directory outside any repository with credentials, a key and an accounts file.
    struct Setup {
        var directory: URL
        var credentials: String { directory.appendingPathComponent("credentials.json").path }
        var accounts: String { directory.appendingPathComponent("accounts.json").path }
    }

    /// Every directory a test makes, removed when the test ends.
    private var made: [URL] = []

    deinit {
        for directory in made { try? FileManager.default.removeItem(at: directory) }
    }

    func setup() throws -> Setup {
        let directory = try MatrixBinary.scratchDirectory("matrix-sandbox")
        made.append(directory)
        let key = Fixtures.packageDirectory.appendingPathComponent("Tests/AppStoreAPITests/Fixtures/test-pki/testSigningKey.p8")
        try Data(contentsOf: key).write(to: directory.appendingPathComponent("AuthKey_K1.p8"))
        try Data(#"{"issuerId": "\#(Self.issuerId)", "keyId": "K1", "keyPath": "AuthKey_K1.p8"}"#.utf8)
            .write(to: directory.appendingPathComponent("credentials.json"))
        try Data(#"{"fresh": {"appleAccount": "Fresh.Tester@example.com"}, "owner": {"testerId": "t2", "description": "owns pro"}}"#.utf8)
            .write(to: directory.appendingPathComponent("accounts.json"))
        return Setup(directory: directory)
    }

    static func testers() -> StubHTTPServer.Response {
        .json(200, object: ["data": [
            ["type": "sandboxTesters", "id": "t1", "attributes": ["acAccountName": emails[0], "territory": "USA", "interruptPurchases": false,
                                                               "subscriptionRenewalRate": "MONTHLY_RENEWAL_EVERY_FIVE_MINUTES"]],
            ["type": "sandboxTesters", "id": "t2", "attributes": ["acAccountName": emails[1], "territory": "CAN", "interruptPurchases": true,
                                                               "subscriptionRenewalRate": "MONTHLY_RENEWAL_EVERY_ONE_HOUR"]],
        ], "links": ["self": "https://api.appstoreconnect.apple.com/v2/sandboxTesters"]])
    }

    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `matrix sandbox ARGS` with output captured in files.
    func run(_ arguments: [String], server: StubHTTPServer, in directory: URL, terminal: Bool = false) async throws -> Output {
        let out = directory.appendingPathComponent("out-\(UUID().uuidString).txt")
        let err = directory.appendingPathComponent("err-\(UUID().uuidString).txt")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let outHandle = try FileHandle(forWritingTo: out)
        let errHandle = try FileHandle(forWritingTo: err)
        let console = Console(environment: ["NO_COLOR": "1"], out: outHandle, err: errHandle)
        let command = SandboxCommand(console: console, environment: [:], currentDirectory: directory.path, session: server.session,
                                     showsAccountNames: terminal, clock: SystemAPIClock())
        var status: Int32
        do {
            status = try await command.execute(arguments + ["--api-base-url", server.baseURL.absoluteString, "--retries", "0"]).rawValue
        } catch {
            console.error(error.message)
            status = error.code.rawValue
        }
        try outHandle.close()
        try errHandle.close()
        let output = Output(status: status, stdout: try String(contentsOf: out, encoding: .utf8), stderr: try String(contentsOf: err, encoding: .utf8))
        try FileManager.default.removeItem(at: out)
        try FileManager.default.removeItem(at: err)
        return output
    }

    @Test("testers lists aliases, ids, territory, rate and interruption; e-mail addresses only on a terminal")
    func listTesters() async throws {
        let setup = try setup()
        let server = StubHTTPServer([Self.testers()])
        let piped = try await run(["testers", "--credentials", setup.credentials, "--accounts", setup.accounts], server: server, in: setup.directory)
        #expect(piped.status == 0, "\(piped.stderr)")
        let lines = piped.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("ALIAS"))
        #expect(lines[1].split(separator: " ", omittingEmptySubsequences: true) == ["fresh", "t1", "(hidden)", "USA", "5m", "off"])
        #expect(lines[2].split(separator: " ", omittingEmptySubsequences: true) == ["owner", "t2", "(hidden)", "CAN", "1h", "on"])
        for email in Self.emails { #expect(!piped.stdout.contains(email) && !piped.stderr.contains(email)) }

        let terminal = try await run(["testers", "--credentials", setup.credentials], server: server, in: setup.directory, terminal: true)
        #expect(terminal.stdout.contains(Self.emails[0]))
        #expect(terminal.stdout.split(separator: "\n").dropFirst().allSatisfy { $0.hasPrefix("-") })
    }

    @Test("set resolves an alias by e-mail address and sends the new rate and interruption")
    func setByAccount() async throws {
        let setup = try setup()
        let server = StubHTTPServer { request, _ in
            request.method == "GET" ? Self.testers()
                : .json(200, object: ["data": ["type": "sandboxTesters", "id": "t1",
                                               "attributes": ["interruptPurchases": true, "subscriptionRenewalRate": "MONTHLY_RENEWAL_EVERY_THREE_MINUTES"]]])
        }
        let result = try await run(["set", "fresh", "--renewal-rate", "3m", "--interrupt-purchases", "on", "--accounts", setup.accounts,
                                    "--credentials", setup.credentials], server: server, in: setup.directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("fresh: renewal rate 3m, interrupt purchases on"))
        let patch = try #require(server.requests.last)
        #expect(patch.method == "PATCH")
        #expect(patch.path == "/v2/sandboxTesters/t1")
        let body = String(decoding: try #require(patch.body), as: UTF8.self)
        #expect(body.contains(#""subscriptionRenewalRate":"MONTHLY_RENEWAL_EVERY_THREE_MINUTES""#))
        #expect(body.contains(#""interruptPurchases":true"#))
    }

    @Test("clear resolves a tester id without listing and clears several aliases at once")
    func clear() async throws {
        let setup = try setup()
        let server = StubHTTPServer { request, _ in
            request.method == "GET" ? Self.testers() : .json(201, #"{"data": {"type": "sandboxTestersClearPurchaseHistoryRequest", "id": "r1"}}"#)
        }
        let result = try await run(["clear", "owner", "fresh", "--accounts", setup.accounts, "--credentials", setup.credentials], server: server, in: setup.directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(server.requests.map(\.method) == ["GET", "POST"])
        let body = String(decoding: try #require(server.requests.last?.body), as: UTF8.self)
        #expect(body.contains(#"{"id":"t2","type":"sandboxTesters"},{"id":"t1","type":"sandboxTesters"}"#))
        #expect(result.stderr.contains("cleared the purchase history of owner, fresh"))
    }

    @Test("An unknown alias exits 65 with a suggestion and sends nothing")
    func unknownAlias() async throws {
        let setup = try setup()
        let server = StubHTTPServer([Self.testers()])
        let result = try await run(["clear", "frsh", "--accounts", setup.accounts, "--credentials", setup.credentials], server: server, in: setup.directory)
        #expect(result.status == 65)
        #expect(result.stderr.contains(#"did you mean "fresh"?"#))
        #expect(server.requests.isEmpty)
    }

    @Test("An alias whose account App Store Connect does not have exits 65 without printing the address")
    func accountNotFound() async throws {
        let setup = try setup()
        try Data(#"{"gone": {"appleAccount": "gone.tester@example.com"}}"#.utf8).write(to: URL(fileURLWithPath: setup.accounts))
        let result = try await run(["set", "gone", "--renewal-rate", "5m", "--accounts", setup.accounts, "--credentials", setup.credentials],
                                   server: StubHTTPServer([Self.testers()]), in: setup.directory)
        #expect(result.status == 65)
        #expect(result.stderr.contains("alias \"gone\""))
        #expect(!result.stderr.contains("gone.tester@example.com"))
    }

    @Test("A malformed accounts file exits 65 with located diagnostics")
    func malformedAccounts() async throws {
        let setup = try setup()
        try Data("{\n  \"fresh\": {\"appleAccount\": 5}\n}\n".utf8).write(to: URL(fileURLWithPath: setup.accounts))
        let result = try await run(["testers", "--accounts", setup.accounts, "--credentials", setup.credentials],
                                   server: StubHTTPServer([Self.testers()]), in: setup.directory)
        #expect(result.status == 65)
        #expect(result.stderr.contains("accounts.json:2:29: error: expected a string, found a number (at /fresh/appleAccount)"))
    }

    @Test("Private files inside the repository are refused with exit 64", arguments: ["credentials", "accounts"])
    func insideRepository(which: String) async throws {
        let setup = try setup()
        try FileManager.default.createDirectory(at: setup.directory.appendingPathComponent(".git"), withIntermediateDirectories: true)
        let outside = try self.setup()
        let credentials = which == "credentials" ? setup.credentials : outside.credentials
        let accounts = which == "accounts" ? setup.accounts : outside.accounts
        let server = StubHTTPServer([Self.testers()])
        let result = try await run(["testers", "--credentials", credentials, "--accounts", accounts], server: server, in: outside.directory)
        #expect(result.status == 64)
        #expect(result.stderr.contains("inside the git work tree"))
        #expect(server.requests.isEmpty)
    }

    @Test("Usage errors exit 64", arguments: [["set", "fresh"], ["set", "fresh", "--renewal-rate", "4m"], ["testers", "--renewal-rate", "5m"],
                                              ["clear"], ["list"], ["set", "fresh", "--interrupt-purchases", "maybe"], ["testers", "--timeout", "0"]])
    func usage(arguments: [String]) async throws {
        let setup = try setup()
        let server = StubHTTPServer([Self.testers()])
        let result = try await run(arguments + ["--accounts", setup.accounts, "--credentials", setup.credentials], server: server, in: setup.directory)
        #expect(result.status == 64)
        #expect(server.requests.isEmpty)
    }

    @Test("App Store Connect refusing the key exits 69 with what to check, and never shows the issuer id or token")
    func unauthorized() async throws {
        let setup = try setup()
        let server = StubHTTPServer([.json(401, #"{"errors": [{"status": "401", "code": "NOT_AUTHORIZED", "title": "Authentication credentials are missing or invalid."}]}"#)])
        let result = try await run(["testers", "--credentials", setup.credentials], server: server, in: setup.directory)
        #expect(result.status == 69)
        #expect(result.stderr.contains("issuer id"))
        let token = try #require(server.requests.first?.header("Authorization")).dropFirst("Bearer ".count)
        #expect(!result.stderr.contains(Self.issuerId) && !result.stdout.contains(Self.issuerId))
        #expect(!result.stderr.contains(token))
    }

    @Test("The built binary without credentials exits 69, and with an unreachable API exits 69, writing no file and no secret")
    func binary() async throws {
        let setup = try setup()
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: setup.directory.path))
        let unset = Dictionary(uniqueKeysWithValues: ["APP_STORE_CONNECT_ISSUER_ID", "APP_STORE_CONNECT_KEY_ID", "APP_STORE_CONNECT_KEY_PATH",
                                                      "APP_STORE_IN_APP_PURCHASE_KEY_ID", "APP_STORE_IN_APP_PURCHASE_KEY_PATH"].map { ($0, "") })
        let missing = try await MatrixBinary.run(["sandbox", "testers"], in: setup.directory, environment: unset)
        #expect(missing.status == 69)
        #expect(missing.stderr.contains("APP_STORE_CONNECT_ISSUER_ID"))
        let unreachable = try await MatrixBinary.run(["sandbox", "testers", "--credentials", setup.credentials, "--api-base-url", "http://127.0.0.1:9",
                                                      "--retries", "0", "--timeout", "5"], in: setup.directory)
        #expect(unreachable.status == 69, "\(unreachable.stderr)")
        #expect(unreachable.stderr.contains("could not reach 127.0.0.1"))
        #expect(!unreachable.stderr.contains(Self.issuerId) && !unreachable.stdout.contains(Self.issuerId))
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: setup.directory.path)) == before)
    }
}
