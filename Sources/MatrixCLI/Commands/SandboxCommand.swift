import Foundation
import AppStoreAPI
import MatrixJSON
import MatrixModel
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `matrix sandbox testers|set|clear`: the team's Sandbox Apple Accounts through the App Store Connect API.
///
/// Aliases come from an accounts file (`--accounts FILE`, outside the repository). Account e-mail addresses
/// are printed only when stdout is a terminal, and nothing is ever written to a file.
struct SandboxCommand {
    let console: Console
    var environment: [String: String] = ProcessInfo.processInfo.environment
    var currentDirectory: String = FileManager.default.currentDirectoryPath
    /// The session for requests; tests pass a stub's.
    var session: URLSession = URLSession(configuration: .ephemeral)
    /// Whether e-mail addresses may be printed: only when stdout is a terminal.
    var showsAccountNames: Bool = isatty(STDOUT_FILENO) == 1
    var clock: any APIClock = SystemAPIClock()

    static let testers = CommandSpec(
        ["sandbox", "testers"], summary: "List the team's Sandbox Apple Accounts",
        usage: ["[--accounts FILE]"],
        discussion: """
            Lists the team's Sandbox Apple Accounts with their tester id, territory, renewal rate and whether \
            purchases are interrupted; with --accounts, the alias of each (e-mail addresses only on a terminal).
            """ + accountsHelp)

    static let set = CommandSpec(
        ["sandbox", "set"], summary: "Set a Sandbox Apple Account's renewal rate or purchase interruption",
        usage: ["ALIAS [--renewal-rate 3m|5m|15m|30m|1h] [--interrupt-purchases on|off] --accounts FILE"],
        discussion: """
            Changes how fast the subscriptions of the Sandbox Apple Account ALIAS renew, and whether its purchases \
            are interrupted.
            """ + accountsHelp,
        positionals: [Positional("ALIAS", "a key of the accounts file", completion: .nothing)],
        options: [
            .value(.renewalRate, "RATE", "one month lasts 3m, 5m, 15m, 30m or 1h",
                   choices: Choices(AppStoreAPI.SandboxRenewalRate.known.compactMap(\.shortName))),
            .value(.interruptPurchases, "STATE", "on or off",
                   choices: Choices(["on", "off"], aliases: ["true": "on", "yes": "on", "false": "off", "no": "off"], caseInsensitive: true)),
        ])

    static let clear = CommandSpec(
        ["sandbox", "clear"], summary: "Clear the purchase history of Sandbox Apple Accounts",
        usage: ["ALIAS… --accounts FILE"],
        discussion: """
            Clears the purchase history of each Sandbox Apple Account ALIAS names; on the device, restore purchases \
            (AppStore.sync()) to see the change.
            """ + accountsHelp,
        positionals: [Positional("ALIAS…", "keys of the accounts file", completion: .nothing)])

    static let spec = CommandSpec(
        ["sandbox"], summary: "Sandbox Apple Accounts: testers, set (renewal rate), clear (purchase history)",
        discussion: """
            Manages the team's Sandbox Apple Accounts through the App Store Connect API (an App Store Connect API \
            team key): `testers` lists them (e-mail addresses only on a terminal), `set` changes how fast \
            subscriptions renew and whether purchases are interrupted, `clear` clears purchase history.
            """ + accountsHelp,
        options: [
            .value(.accounts, "FILE", "aliases → Sandbox Apple Accounts (JSON, outside the repository)"),
        ] + AppStoreOptions.options,
        subcommands: [testers, set, clear])

    /// What every sandbox command's help says of aliases, credentials and the exit status.
    private static let accountsHelp = """


        ALIAS is a key of the accounts file: {"ALIAS": {"appleAccount": "tester@example.com"}} or \
        {"ALIAS": {"testerId": "…"}}. Credentials come from --credentials FILE or APP_STORE_CONNECT_ISSUER_ID, \
        APP_STORE_CONNECT_KEY_ID and APP_STORE_CONNECT_KEY_PATH; see docs/app-store-api.md.

        Exit status: 0 done, 64 usage (or a private file inside the repository), 65 invalid accounts file or \
        unknown alias, 66 a file cannot be read, 69 no credentials or App Store Connect unavailable.
        """

    func execute(_ arguments: [String]) async throws(CommandFailure) -> ExitCode {
        let args = try Arguments(arguments, options: Self.spec.optionsWithSubcommands)
        if args.has(.help) || args.positionals.first == HelpCommand.spec.name {
            let named = args.positionals.first { $0 != HelpCommand.spec.name }.flatMap(Self.spec.subcommand)
            console.output(named.map { HelpText.command($0, under: Self.spec, width: console.width) } ?? HelpText.command(Self.spec, width: console.width))
            return .success
        }
        guard let action = args.positionals.first else { throw .usage("missing subcommand: testers, set or clear") }
        let aliases = Array(args.positionals.dropFirst())
        let setOnly = Self.set.options.filter { $0.key != .help && args.value($0.key) != nil }.map(\.key)
        if action != Self.set.name, let option = setOnly.first { throw .usage("\(option) belongs to `matrix sandbox set`") }
        switch action {
        case Self.testers.name:
            guard aliases.isEmpty else { throw .usage("testers takes no arguments") }
        case Self.set.name:
            guard aliases.count == 1 else { throw .usage("set takes one ALIAS") }
            guard !setOnly.isEmpty else { throw .usage("set needs --renewal-rate or --interrupt-purchases") }
        case Self.clear.name:
            guard !aliases.isEmpty else { throw .usage("clear takes one or more ALIAS") }
        default:
            let hint = Suggestion.nearest(action, among: Self.spec.subcommands.map(\.name)).map { "; did you mean \($0)?" } ?? ""
            throw .usage("unknown sandbox subcommand \"\(action)\"\(hint)")
        }
        let rate = try renewalRate(args)
        let interrupt = try interruptPurchases(args)
        if action != Self.testers.name, args.value(.accounts) == nil { throw .usage("\(action) needs --accounts FILE to resolve \(aliases.joined(separator: ", "))") }
        let options = try AppStoreOptions(args)
        let accounts = try args.value(.accounts).map { path throws(CommandFailure) in try loadAccounts(path) }
        let credentials = try options.credentials(environment: environment, currentDirectory: currentDirectory, console: console)
        let client: AppStoreConnectAPIClient
        do {
            client = try AppStoreConnectAPIClient(credentials: credentials, configuration: .init(
                baseURL: options.baseURL, timeout: options.timeout, retry: options.retry, clock: clock, session: session))
        } catch {
            throw AppStoreOptions.failure(error)
        }
        do {
            switch action {
            case Self.testers.name:
                try await list(client, accounts: accounts)
            case Self.set.name:
                let (alias, id) = try await resolve(aliases, in: accounts, client: client)[0]
                let tester = try await client.updateSandboxTester(id: id, subscriptionRenewalRate: rate, interruptPurchases: interrupt)
                console.info("\(alias): renewal rate \(tester.subscriptionRenewalRate?.description ?? "unchanged"), interrupt purchases \(onOff(tester.interruptPurchases))", always: true)
            default:
                let resolved = try await resolve(aliases, in: accounts, client: client)
                try await client.clearPurchaseHistory(testerIds: resolved.map(\.id))
                console.info("cleared the purchase history of \(resolved.map(\.alias).joined(separator: ", ")); "
                             + "on the device, restore purchases (AppStore.sync()) to see the change", always: true)
            }
        } catch let failure as CommandFailure {
            throw failure
        } catch let error as AppStoreAPIError {
            throw AppStoreOptions.failure(error)
        } catch {
            throw CommandFailure("unexpected error: \(error)", code: .software)
        }
        return .success
    }

    // MARK: - Subcommands

    private func list(_ client: AppStoreConnectAPIClient, accounts: SandboxAccountsFile?) async throws(AppStoreAPIError) {
        let testers = try await client.sandboxTesters()
        var rows = [["ALIAS", "TESTER ID", "ACCOUNT", "TERRITORY", "RENEWAL", "INTERRUPT"]]
        for tester in testers {
            rows.append([accounts?.alias(of: tester) ?? "-", tester.id,
                         showsAccountNames ? (tester.acAccountName ?? "-") : "(hidden)", tester.territory ?? "-",
                         tester.subscriptionRenewalRate?.description ?? "-", onOff(tester.interruptPurchases)])
        }
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            let line = row.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: "  ")
            console.outputText(line.trimmingCharacters(in: .whitespaces) + "\n")
        }
        console.info("\(testers.count) sandbox tester\(testers.count == 1 ? "" : "s")")
        if !showsAccountNames, !testers.isEmpty {
            console.info("account e-mail addresses are shown only when the output is a terminal")
        }
        for entry in accounts?.entries ?? [] where !testers.contains(where: { SandboxAccountsFile.matches(entry.reference, $0) }) {
            console.warning("alias \"\(entry.alias)\" of the accounts file matches no sandbox tester")
        }
    }

    /// The tester id of each alias, listing testers only when an alias names an e-mail address.
    private func resolve(_ aliases: [String], in accounts: SandboxAccountsFile?, client: AppStoreConnectAPIClient) async throws -> [(alias: String, id: String)] {
        guard let accounts else { return [] }
        var entries: [SandboxAccountsFile.Entry] = []
        for alias in aliases {
            guard let entry = accounts.entry(alias) else {
                let hint = Suggestion.nearest(alias, among: accounts.aliases).map { "; did you mean \"\($0)\"?" } ?? ""
                throw CommandFailure("unknown alias \"\(alias)\" (the accounts file has \(accounts.aliases.joined(separator: ", ")))\(hint)", code: .dataError)
            }
            entries.append(entry)
        }
        var testers: [SandboxTester]?
        var resolved: [(alias: String, id: String)] = []
        for entry in entries {
            switch entry.reference {
            case .testerId(let id):
                resolved.append((entry.alias, id))
            case .appleAccount:
                if testers == nil { testers = try await client.sandboxTesters() }
                guard let tester = testers?.first(where: { SandboxAccountsFile.matches(entry.reference, $0) }) else {
                    throw CommandFailure("no sandbox tester has the Apple Account of alias \"\(entry.alias)\" (the address is not shown); check the "
                                         + "accounts file, or create the account in App Store Connect → Users and Access → Sandbox", code: .dataError)
                }
                resolved.append((entry.alias, tester.id))
            }
        }
        return resolved
    }

    // MARK: - Options

    private func loadAccounts(_ path: String) throws(CommandFailure) -> SandboxAccountsFile {
        do {
            return try SandboxAccountsFile.load(path, guard: RepositoryGuard(currentDirectory: currentDirectory))
        } catch {
            throw AppStoreOptions.failure(error, console: console)
        }
    }

    private func renewalRate(_ args: Arguments) throws(CommandFailure) -> SandboxRenewalRate? {
        try args.choice(.renewalRate) { SandboxRenewalRate(shortName: $0) }
    }

    private func interruptPurchases(_ args: Arguments) throws(CommandFailure) -> Bool? {
        try args.choice(.interruptPurchases).map { $0 == "on" }
    }

    private func onOff(_ value: Bool?) -> String {
        value.map { $0 ? "on" : "off" } ?? "-"
    }
}
