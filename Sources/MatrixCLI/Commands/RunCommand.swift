import AppStoreAPI
import EvidenceStore
import EvidenceVerification
import ExecEnvironment
import Foundation
import GuidedEnvironment
import LocalEnvironment
import MatrixEngine
import MatrixJSON
import MatrixModel
import ReferenceApp
import ServerEnvironment

/// `matrix run MATRIX`: runs every case in an environment and writes the evidence; `--resume RUN_DIR` finishes
/// an interrupted run.
struct RunCommand {
    let console: Console

    static let spec = CommandSpec(
        ["run"], summary: "Run a matrix (default environment: the embedded local simulator)",
        usage: ["MATRIX [options]", "[MATRIX] --resume RUN_DIR [--driver CMD] [--jobs N]"],
        discussion: """
            Runs every case of MATRIX and writes evidence to <out>/<environment>/<build>/<run-id>/. Each record is on \
            disk when its step ends; Ctrl-C stops at the next step, keeps everything and exits 130. --resume finishes \
            such a run (or one killed outright) without recording any step twice. It reads the matrix MATRIX names, or \
            the one run.json records: that path from here, else from each directory above RUN_DIR, whichever file is \
            the run's (same SHA-256).
            Progress lines and the closing summary go to standard error (pipe with 2>&1); nothing goes to stdout.
            Exit status: 0 no step failed (every step passed, or was skipped as not supported in the environment) \
            and at least one step was performed, 1 a step failed, errored or was blocked, or the run performed too \
            little (no step at all; with --fail-on-skip any skip; with --min-performed less than that share), 64 \
            usage, 65 invalid matrix or catalog, 66 unreadable matrix, 69 environment unavailable, 70 internal \
            error, 74 cannot write evidence, 130 interrupted (evidence kept).

            With --env exec, an external driver performs the steps (docs/driver-protocol.md); --driver is split into \
            arguments without a shell: '…' and "…" quote, \\ escapes the next character. A run directory is data, \
            never code: --resume of an exec run starts its driver only when --driver gives the same command again.

            With --env server, the embedded App Store posts its App Store Server Notifications V2 to your backend \
            (--notify-url) and each step observes the tiers your backend answers (--access-url); --server starts the \
            backend with MATRIX_NOTIFY_URL, MATRIX_ACCESS_URL, MATRIX_PORT, MATRIX_BUNDLE_ID, MATRIX_ENVIRONMENT and \
            MATRIX_ROOT_CERTIFICATE in its environment (docs/server-environment.md).

            Guided runs (--env sandbox|testflight) cross-check every step with the App Store Server API when credentials \
            are given (--credentials FILE, or the APP_STORE_CONNECT_* and APP_STORE_IN_APP_PURCHASE_* variables; see \
            docs/app-store-api.md).
            """,
        positionals: [Positional("MATRIX", "the matrix file to run; with --resume, only when it is not where run.json says")],
        options: [
            .value(.env, "NAME", "environment: local (default), exec, sandbox, testflight, server",
                   choices: Choices(["local", "exec", "sandbox", "testflight", "server"])),
            .value(.driver, "CMD", "with --env exec: the driver's command line, e.g. \"python3 driver.py --verbose\""),
            .value(.stepTimeout, "SECONDS", "with --env exec or server: seconds a driver or backend may take per request (default 30)"),
            .value(.notifyURL, "URL", "with --env server: where the backend receives notifications, http://127.0.0.1:PORT/…"),
            .value(.accessURL, "URL", "with --env server: where it answers access; {appAccountToken}, {originalTransactionId}, {account}"),
            .value(.server, "CMD", "with --env server: start the backend, wait until it listens, stop it at the end"),
            .value(.delivery, "MODE", "with --env server: production (default, retries), sandbox (once), shuffled, duplicated",
                   choices: Choices(DeliveryMode.allCases.map(\.rawValue))),
            .value(.seed, "N", "with --delivery shuffled or duplicated: the order's seed (default 1)"),
            .flag(.signingFaults, "with --env server: also send notifications a correct server refuses; a step fails when the backend accepts one"),
            .value(.apiKey, "FILE", "with --env server: the .p8 key whose tokens the loopback App Store Server API accepts (default: one made for the run)"),
            .value(.apiKeyId, "ID", "with --env server: the key id tokens must name (default MATRIXKEY1)"),
            .value(.apiIssuerId, "ID", "with --env server: the issuer id tokens must carry (default: a UUID made for the run)"),
            .value(.build, "BUILD", "build under test, e.g. \"1.4 (212)\""),
            .value(.device, "DEVICE", "device, e.g. \"iPhone 16\""),
            .value(.os, "OS", "OS version, e.g. \"iOS 26.1\""),
            .value(.out, "DIR", "reports root (default: reports)"),
            .value(.runID, "ID", "the run's id, its directory's name (default: start time and 32 random bits); letters, digits, . _ -"),
            .value(.jobs, "N", "cases run at once (default: number of cores; 1 for exec and guided runs)"),
            .value(.shard, "K/N", "run slice K of N of the (selected) cases (see `matrix merge`)"),
            .value(.resume, "RUN_DIR", "finish an interrupted run in RUN_DIR from its first unrecorded step"),
            .value(.appFault, "NAME", "run the reference app with a known bug (see `matrix faults`); repeatable, for several at once",
                   choices: .appFaults, repeatable: true),
            .value(.clock, "CLOCK", "clock the local environment models: real (default), xcode[:timeRate], sandbox:<3|5|15|30|60>, testflight",
                   choices: .clock),
            .value(.signedEnvironment, "ENV", "environment written in signed data: Sandbox, Production, Xcode, LocalTesting (default: Xcode with an xcode clock, else Sandbox)",
                   choices: .signedEnvironments),
            .value(.answers, "FILE", "sandbox/testflight: the tester's answers as JSON Lines, for scripted or replayed runs"),
            .value(.accounts, "FILE", "sandbox/testflight: account aliases to Sandbox Apple Accounts (kept outside the repository)"),
            .flag(.failOnSkip, "fail the run when any step is skipped"),
            .value(.minPerformed, "PERCENT", "fail the run when fewer than PERCENT % of its steps are performed (default: at least one)"),
            .flag(.strict, "refuse to run a matrix that has warnings"),
            .flag(.quiet, "print only failures and the summary"),
            .flag(.verbose, "print every step"),
        ] + SelectionOptions.options + AppStoreOptions.options)

    /// What a run needs, whether it starts fresh or resumes.
    struct Setup {
        var matrix: Matrix
        var adapter: any EnvironmentAdapter
        var context: RunContext
        var cases: [Int]
        var session: EvidenceSession
        var prior: [String: [RecordedStep]]
        var lastSeq: Int
        /// Where the matrix file writes each step, for annotations.
        var locations: MatrixLocations
    }

    func execute(_ arguments: [String]) async throws(CommandFailure) -> ExitCode {
        guard let args = try Arguments.parse(arguments, for: Self.spec, on: console) else { return .success }
        console.quiet = args.has(.quiet)
        console.verbose = args.has(.verbose)
        // Checked before the run directory is created: a usage error leaves nothing behind.
        let requestedJobs = try args.int(.jobs, in: 1...256)
        let policy = ExercisePolicy(failOnSkip: args.has(.failOnSkip), minimumPerformedPercent: try args.int(.minPerformed, in: 0...100))
        let trap = SignalTrap()
        defer { trap.release() }
        let setup = args.value(.resume) != nil ? try await resume(args) : try await start(args, trap: trap)
        let execAdapter = setup.adapter as? ExecAdapter
        // A person performs one case at a time; an external driver too, unless --jobs starts more of them.
        let defaultJobs = setup.adapter is GuidedAdapter || execAdapter != nil ? 1 : ProcessInfo.processInfo.activeProcessorCount
        let jobs = requestedJobs ?? defaultJobs

        let runner = Runner(matrix: setup.matrix, adapter: setup.adapter, context: setup.context, jobs: jobs)
        let printer = ProgressPrinter(console: console, total: setup.cases.count, locations: setup.locations)
        let writer = setup.session.writer
        let (cases, prior, lastSeq) = (setup.cases, setup.prior, setup.lastSeq)
        let outcome = await trap.run {
            try await runner.run(cases: cases, into: writer, firstSeq: lastSeq, prior: prior) { printer.handle($0) }
        }
        await execAdapter?.shutdown()
        let serverAdapter = setup.adapter as? ServerAdapter
        await serverAdapter?.shutdown()
        if let lost = serverAdapter?.backendProblem {
            // The run stopped at the step where the backend was found gone: what came after it is not evidence.
            _ = try? await setup.session.finish(interrupted: true)
            throw CommandFailure("the backend stopped during the run: \(lost)",
                                 hint: "Evidence of the steps before is kept in \(setup.session.directory.url.path); "
                                     + Self.serverNotResumed, code: .unavailable)
        }
        var summary: RunSummary
        switch outcome {
        case .finished(let result):
            summary = result
        case .failed(let error):
            _ = try? await setup.session.finish(interrupted: true)
            throw CommandFailure("cannot write evidence: \(error)",
                                 hint: "Evidence written so far is kept in \(setup.session.directory.url.path); " + Self.afterInterruption(setup.session.directory.url, args: args, server: setup.adapter is ServerAdapter), code: .ioError)
        }
        // A signal that came after the last step still stops the run short of complete; one that comes while the
        // run is being finished no longer changes what run.json says, nor the exit status.
        if trap.signalReceived != nil { summary.interrupted = true }
        let directory = try await setup.session.finish(interrupted: summary.interrupted, unfinishedCase: summary.unfinishedCase)
        JobSummary.append(from: directory, console: console)
        printer.summary(summary, of: setup.cases.count, shard: setup.session.manifest.shard,
                        selection: setup.session.manifest.selection.map { "\($0.summary), \(setup.session.manifest.selectedCases?.count ?? 0) of \(setup.matrix.cases.count) cases" },
                        directory: Self.displayPath(directory.url))
        if summary.interrupted {
            console.info(Self.afterInterruption(directory.url, args: args, server: setup.adapter is ServerAdapter), always: true)
            return .interrupted
        }
        if let shortfall = policy.shortfall(summary.stepCounts) {
            console.annotate(GitHubAnnotations.command(.error, message: shortfall, file: setup.locations.file, title: "matrix run"))
            console.error(shortfall)
            return .failure
        }
        return summary.allPassed ? .success : .failure
    }

    /// A fresh run: load and check the matrix, build the environment, create the run directory.
    func start(_ args: Arguments, trap: SignalTrap? = nil) async throws(CommandFailure) -> Setup {
        guard args.positionals.count == 1, let path = args.positionals.first else {
            throw .usage(args.positionals.isEmpty ? "missing MATRIX (the matrix file to run)" : "run takes one MATRIX, got \(args.positionals.count)")
        }
        let faults = try Self.faults(args.all(.appFault))
        // Without --signed-environment, signed data names the environment of the clock: Xcode's clock, Xcode's data.
        let signedEnvironment = try args.choice(.signedEnvironment, as: SignedEnvironment.self) ?? .following(clock: args.value(.clock))
        var shard: Shard?
        if let text = args.value(.shard) {
            guard let parsed = Shard(text) else { throw .usage("--shard must be K/N with 1 ≤ K ≤ N, e.g. 2/4; got \"\(text)\"") }
            shard = parsed
        }
        if let runID = args.value(.runID), !RunDirectory.isValidRunID(runID) {
            throw .usage("--run-id must be 1 to 64 letters, digits, '.', '_' or '-', not starting with '.' or '-'; got \"\(runID)\"")
        }
        let environment = args.value(.env).map(EnvironmentKind.init) ?? .local
        let exec = try ExecOptions(args, environment: environment)
        let server = try ServerRunOptions(args, environment: environment)
        var (matrix, bytes, catalogBytes, warnings) = try loadMatrix(path, strict: args.has(.strict))
        if signedEnvironment == .production, matrix.app.appAppleId == nil, exec == nil, environment == .local || environment == .server {
            // Apple's verifiers compare a Production notification's appAppleId with the app's; data without one
            // would fail every backend's check. Apple: https://developer.apple.com/documentation/appstoreservernotifications/data
            throw .usage("--signed-environment Production needs app.appAppleId in the matrix (the app's Apple ID in App Store Connect): "
                         + "Apple's verifiers require it in Production notifications")
        }
        // A passing run says nothing of a product no case tests (one added to the catalog after the matrix).
        let untested = matrix.untestedProducts.map(\.productID)
        if !untested.isEmpty {
            let warning = "\(untested.count) catalog product\(untested.count == 1 ? "" : "s") no case tests: " + untested.prefix(5).joined(separator: ", ")
                + (untested.count > 5 ? ", …" : "") + "; `matrix init --update \(path)` adds \(untested.count == 1 ? "its" : "their") cases"
            console.warning(warning)
            warnings.append("warning: " + warning)
        }
        let schedule = try Self.schedule(args.value(.clock), matrix: matrix)
        // The clock and the signed data are modelled by the embedded store: local and server runs.
        if exec == nil, environment == .local || environment == .server {
            if let note = Self.xcodeClockNote(args.value(.clock), schedule: schedule, matrix: matrix) { console.info(note) }
            if let warning = Self.unsentNotificationsWarning(matrix, schedule: schedule, signedEnvironment: signedEnvironment) {
                console.warning(warning)
                warnings.append("warning: " + warning)
            }
        }
        let salt = Self.makeSalt()
        let guided = try guidedSetup(environment, args: args, salt: salt, matrix: matrix)
        let adapter: any EnvironmentAdapter
        if let exec {
            adapter = try await exec.start(matrix: matrix, path: path, bytes: bytes, catalogBytes: catalogBytes, console: console)
        } else if let server {
            adapter = try await Self.startingServer(server, matrix: matrix, schedule: schedule, signedEnvironment: signedEnvironment,
                                                    console: console, trap: trap)
        } else {
            adapter = try makeAdapter(environment, schedule: schedule, clockGiven: args.value(.clock) != nil,
                                      signedEnvironment: signedEnvironment, faults: faults, guided: guided, args: args)
        }
        let describedBuild = args.value(.build) ?? adapter.description.build
        var context = RunContext(
            runID: args.value(.runID) ?? RunDirectory.makeRunID(),
            environment: adapter.description.name,
            build: describedBuild ?? (environment == .local ? "unspecified (local run)" : "unspecified"),
            device: args.value(.device) ?? adapter.description.device ?? "unspecified",
            os: args.value(.os) ?? adapter.description.os ?? "unspecified",
            accountHashes: guided?.hashes ?? [:], appFault: Self.faultNames(faults))
        let selection = SelectionOptions.selection(args)
        let selected = try SelectionOptions.resolve(selection, in: matrix)
        let cases = shard.map { $0.caseIndices(of: matrix, among: selected) } ?? selected
        var manifest = RunManifest(
            toolVersion: MatrixCommand.version, context: context,
            matrix: MatrixReference(path: path, contents: Data(bytes), name: matrix.name, catalog: catalogBytes),
            clock: adapter.description.clock, accounts: RunManifest.accounts(of: matrix), startedAt: Date())
        manifest.appFault = Self.faultNames(faults)
        manifest.warnings = warnings.isEmpty ? nil : warnings
        manifest.guidance = guided?.guidance
        manifest.signedEnvironment = exec == nil ? signedEnvironment.rawValue : nil
        manifest.driver = exec?.arguments
        manifest.server = server?.command
        manifest.shard = shard?.description
        manifest.shardCases = shard.map { _ in cases.map { matrix.cases[$0].id } }
        if !selection.isEmpty {
            manifest.selection = selection
            manifest.selectedCases = selected.map { matrix.cases[$0].id }
        }
        if let guided {
            manifest.accountSalt = salt
            manifest.accounts = manifest.accounts.map { account in
                var copy = account
                copy.hash = guided.hashes[account.alias]
                return copy
            }
        }
        if let guidedAdapter = adapter as? GuidedAdapter, let answers = guided?.prompter as? ScriptedPrompter,
           let (caseID, step) = answers.firstUnansweredStep(of: matrix, cases: cases, environment: guidedAdapter.environment,
                                                            schedule: guidedAdapter.schedule) {
            // The run would stop at once, leaving a run directory with nothing in it.
            throw CommandFailure("\(args.value(.answers) ?? "the answers file") has no answer for the first step the run asks, case \"\(caseID)\" "
                                 + "step \(step); nothing was run (add its answer, or skip it with {\"case\": \"\(caseID)\", \"step\": \(step), "
                                 + "\"skip\": \"reason\"})", code: .dataError)
        }
        let session: EvidenceSession
        do throws(CommandFailure) {
            session = try EvidenceSession.start(
                root: URL(fileURLWithPath: args.value(.out) ?? "reports"), build: describedBuild ?? RunDirectory.unspecifiedBuild,
                manifest: manifest, runID: args.value(.runID))
        } catch {
            await (adapter as? ExecAdapter)?.shutdown()
            await (adapter as? ServerAdapter)?.shutdown()
            throw error
        }
        context.runID = session.manifest.runId
        return Setup(matrix: matrix, adapter: adapter, context: context, cases: cases, session: session, prior: [:], lastSeq: 0,
                     locations: MatrixLocations(file: path, bytes: bytes))
    }

    /// Starts the server environment, stopped by a signal: waiting up to 30 s for a backend to listen ends at once,
    /// with the backend stopped and exit 130.
    static func startingServer(_ server: ServerRunOptions, matrix: Matrix, schedule: RenewalSchedule, signedEnvironment: SignedEnvironment,
                               console: Console, trap: SignalTrap?) async throws(CommandFailure) -> ServerAdapter {
        guard let trap else { return try await server.start(matrix: matrix, schedule: schedule, signedEnvironment: signedEnvironment, console: console) }
        switch await trap.run({ try await server.start(matrix: matrix, schedule: schedule, signedEnvironment: signedEnvironment, console: console) }) {
        case .finished(let adapter):
            return adapter
        case .failed(let error as CommandFailure):
            throw error
        case .failed(let error):
            throw CommandFailure("cannot start the server environment: \(error)", code: .software)
        }
    }

    /// What to do with an interrupted run: the command that resumes it, or, for a server run, which is not resumed
    /// (the backend already holds what the first part told it), to start again.
    static func afterInterruption(_ directory: URL, args: Arguments, server: Bool) -> String {
        server ? Self.serverNotResumed : "resume with `\(Self.resumeCommand(directory, args: args))`"
    }

    static let serverNotResumed = "a server run is not resumed (the backend already holds what the first part of the run told it, and would be "
        + "told the unfinished case twice): start a new run against a fresh backend"

    /// A resumed run: the run directory's manifest says what ran and how; the matrix must not have changed.
    /// The command that resumes the run in `directory`, ready to paste into a shell: a guided run's answers,
    /// accounts and App Store Server API credentials are needed again.
    static func resumeCommand(_ directory: URL, args: Arguments) -> String {
        var command = "matrix run --resume \(shellWord(displayPath(directory)))"
        for option: OptionKey in [.driver, .answers, .accounts, .credentials] {
            if let value = args.value(option) { command += " \(option) \(shellWord(value))" }
        }
        return TerminalText.visible(command)
    }

    /// `text` as one shell word: as it is when it has no character a shell treats specially, else in single
    /// quotes (a `'` inside written `'\''`).
    static func shellWord(_ text: String) -> String {
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "_-./:=@%+,".unicodeScalars.contains(scalar))
        }
        return plain ? text : "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    func resume(_ args: Arguments) async throws(CommandFailure) -> Setup {
        for option: OptionKey in [.env, .build, .device, .os, .out, .runID, .shard, .appFault, .clock, .signedEnvironment] + SelectionOptions.keys
        where args.value(option) != nil {
            throw .usage("--resume takes the run's own settings from its run.json; drop \(option)")
        }
        guard let runPath = args.value(.resume) else { throw .usage("--resume needs RUN_DIR") }
        let directory = RunDirectory(url: URL(fileURLWithPath: runPath))
        // Every refusal comes before the evidence is reopened, which cuts a torn last line: a refused run is
        // left as it was.
        let manifest = try EvidenceSession.manifest(of: directory)
        let environment = EnvironmentKind(manifest.environment)
        if environment == .server {
            throw CommandFailure("\(runPath) is a server run: \(Self.serverNotResumed)", code: .usage)
        }
        if manifest.status == .complete {
            throw CommandFailure("\(runPath) is complete; there is nothing to resume", code: .usage)
        }
        if manifest.mergedFrom != nil {
            // Resuming would append the missing steps after cases that come later in the matrix.
            throw CommandFailure("\(runPath) was merged from slices and is not resumed: resume each slice that did not complete "
                                 + "(`matrix run --resume SLICE`), run each missing shard, then merge again", code: .usage)
        }
        let isDriven: Bool
        if case .driver = environment { isDriven = true } else { isDriven = environment == .exec }
        if let driver = manifest.driver {
            try Self.checkResumedDriver(driver, given: args.value(.driver), runPath: runPath)
        } else if isDriven {
            throw CommandFailure("\(runPath) cannot be resumed: its run.json names the environment \"\(TerminalText.visible(manifest.environment))\", "
                                 + "which an external driver runs, but no driver command", code: .dataError)
        } else {
            if args.value(.stepTimeout) != nil { throw .usage("--step-timeout is for runs of --env exec") }
            if args.value(.driver) != nil { throw .usage("--driver is for runs of --env exec; \(runPath) is a \(manifest.environment) run") }
        }
        let path: String
        if let given = args.positionals.first {
            path = given
        } else if let found = RecordedMatrix.locate(manifest, runDirectory: directory.url) {
            path = found
        } else {
            throw CommandFailure("the run's matrix \(manifest.matrix.path) is not found from here nor from the directories above the run "
                                 + "(run.json records the path the run was given); name it: `matrix run MATRIX --resume \(runPath)`",
                                 code: .noInput)
        }
        let (matrix, bytes, catalogBytes, _) = try loadMatrix(path, strict: false)
        let digest = MatrixReference(path: path, contents: Data(bytes), name: matrix.name).sha256
        guard digest == manifest.matrix.sha256 else {
            let naming = args.positionals.isEmpty ? "; if the run's matrix is elsewhere, name it: `matrix run MATRIX --resume \(runPath)`" : ""
            throw CommandFailure("\(path) changed since the run started (SHA-256 \(digest.prefix(12))…, the run has \(manifest.matrix.sha256.prefix(12))…); "
                                 + "a resumed run must use the same matrix\(naming)", code: .dataError)
        }
        let catalogDigest = MatrixReference(path: path, contents: Data(bytes), name: matrix.name, catalog: catalogBytes).catalogSHA256
        if let recorded = manifest.matrix.catalogSHA256, recorded != catalogDigest {
            throw CommandFailure("the catalog \(matrix.catalogPath ?? "") changed since the run started (its SHA-256 differs from run.json); "
                                 + "a resumed run must use the same products", code: .dataError)
        }
        let faults = try Self.faults(manifest.appFault.map { $0.split(separator: ",").map(String.init) } ?? [])
        let schedule = try Self.schedule(manifest.clock, matrix: matrix)
        let guided = try guidedSetup(environment, args: args, salt: manifest.accountSalt ?? Self.makeSalt(), matrix: matrix,
                                     build: manifest.build, device: manifest.device, os: manifest.os)
        let resumed = try EvidenceSession.resume(directory, manifest: manifest)
        let adapter: any EnvironmentAdapter
        if let driver = manifest.driver {
            let exec = ExecOptions(arguments: driver, stepTimeout: try ExecOptions.stepTimeout(args))
            adapter = try await exec.start(matrix: matrix, path: path, bytes: bytes, catalogBytes: catalogBytes, console: console,
                                           resumed: manifest)
        } else {
            adapter = try makeAdapter(environment, schedule: schedule, clockGiven: manifest.clock != nil,
                                      signedEnvironment: manifest.signedEnvironment.flatMap(SignedEnvironment.init(rawValue:)) ?? .sandbox, faults: faults, guided: guided, args: args)
        }
        let context = RunContext(runID: manifest.runId, environment: manifest.environment, build: manifest.build,
                                 device: manifest.device, os: manifest.os, accountHashes: guided?.hashes ?? [:],
                                 appFault: Self.faultNames(faults))
        var cases = Array(matrix.cases.indices)
        if let ids = manifest.shardCases ?? manifest.selectedCases {
            let wanted = Set(ids)
            cases = cases.filter { wanted.contains(matrix.cases[$0].id) }
        }
        if resumed.droppedTornLine { console.warning("the last evidence line was torn by the interruption and was dropped") }
        let recorded = resumed.recorded.count
        console.info("resuming \(Self.displayPath(directory.url)): \(recorded) step\(recorded == 1 ? "" : "s") already recorded")
        return Setup(matrix: matrix, adapter: adapter, context: context, cases: cases, session: resumed.session,
                     prior: resumed.recorded.steps, lastSeq: resumed.recorded.lastSeq, locations: MatrixLocations(file: path, bytes: bytes))
    }

    /// A run directory is data, never code: the driver command its run.json records (which anyone who wrote the
    /// directory chose) is started only when the person resuming gives the same command again with `--driver`.
    ///
    /// - Throws: ``CommandFailure`` (usage) without `--driver`, or with another command than the recorded one;
    ///   the message shows the recorded command, escaped, to compare and paste.
    static func checkResumedDriver(_ recorded: [String], given: String?, runPath: String) throws(CommandFailure) {
        let shown = recorded.map(shellWord).joined(separator: " ")
        guard let given else {
            throw .usage("\(runPath) was run by the driver `\(TerminalText.visible(shown))`, which its run.json names; a run directory never "
                         + "starts a program by itself: if that is the driver you mean to run, resume with --driver \(TerminalText.visible(shellWord(shown)))")
        }
        let parsed: [String]
        do {
            parsed = try DriverCommandLine.split(given)
        } catch {
            throw .usage("--driver: \(error.message)")
        }
        guard parsed == recorded else {
            throw .usage("--driver `\(TerminalText.visible(parsed.map(shellWord).joined(separator: " ")))` is not the driver \(runPath) was run by "
                         + "(`\(TerminalText.visible(shown))`); a resumed run continues with the same driver")
        }
    }

    /// The matrix, its file's bytes and its `.storekit` file's bytes (external drivers receive both files).
    /// Loads the matrix; its warnings are returned for run.json, and with `strict` they stop the run.
    func loadMatrix(_ path: String, strict: Bool) throws(CommandFailure) -> (Matrix, [UInt8], catalog: [UInt8]?, warnings: [String]) {
        let loaded = try InputFiles.loadMatrixSources(path)
        _ = MatrixCommand.report(loaded.diagnostics, on: console)
        guard let matrix = loaded.matrix else {
            let count = loaded.diagnostics.filter { $0.severity == .error }.count
            throw CommandFailure("\(path) has \(count) error\(count == 1 ? "" : "s"); nothing was run", code: .dataError)
        }
        let warnings = loaded.diagnostics.filter { $0.severity == .warning }.map(\.rendered)
        if strict, !warnings.isEmpty {
            throw CommandFailure("\(path) has \(warnings.count) warning\(warnings.count == 1 ? "" : "s") and --strict is on; nothing was run",
                                 code: .dataError)
        }
        return (matrix, loaded.bytes, loaded.catalogBytes, warnings)
    }

    /// What a guided run needs besides the matrix: the prompter, the accounts, the build metadata.
    struct Guided {
        var prompter: any Prompter
        var identifiers: [String: String]
        var hashes: [String: String]
        var build: String
        var device: String
        var os: String
        var serverCheck: (any ServerCheck)?
        /// How the tester's observations are obtained, for run.json: `interactive` or `answers file PATH`.
        var guidance: String
    }

    /// For `sandbox` and `testflight`: `--build`, `--device`, `--os` are required; answers come from
    /// `--answers FILE` or a person at a terminal, and without either the run cannot be guided (exit 69).
    func guidedSetup(_ environment: EnvironmentKind, args: Arguments, salt: String, matrix: Matrix, build: String? = nil, device: String? = nil,
                     os: String? = nil) throws(CommandFailure) -> Guided? {
        guard environment.isGuided else {
            for option: OptionKey in [.answers, .accounts, .credentials, .apiBaseURL] where args.value(option) != nil {
                throw .usage("\(option) is for --env sandbox or testflight")
            }
            return nil
        }
        guard let build = build ?? args.value(.build), let device = device ?? args.value(.device), let os = os ?? args.value(.os) else {
            throw .usage("--env \(environment) needs --build, --device and --os (e.g. --build \"1.4 (212)\" --device \"iPhone 16\" --os \"iOS 26.1\")")
        }
        let console = self.console
        let prompter: any Prompter
        if let answers = args.value(.answers) {
            let bytes = try InputFiles.readArgument(answers, what: "answers file")
            let scripted: ScriptedPrompter
            do {
                scripted = try ScriptedPrompter(jsonLines: Data(bytes), path: answers, log: { console.detail($0) },
                                                stopped: { console.info("stopped:", .yellow, $0, always: true) })
            } catch {
                throw CommandFailure((error as? AdapterError)?.message ?? "\(error)", code: .dataError)
            }
            let (errors, warnings) = scripted.problems(against: matrix)
            for warning in warnings { console.warning(warning) }
            for error in errors { console.info([.painted(Console.visible(error), .red)], always: true) }
            guard errors.isEmpty else {
                throw CommandFailure("\(answers) has \(errors.count) problem\(errors.count == 1 ? "" : "s"); nothing was run", code: .dataError)
            }
            prompter = scripted
        } else if isatty(0) == 1 {
            prompter = TerminalPrompter(write: { console.prompt($0) })
        } else {
            throw CommandFailure("a \(environment) run is guided: run it at a terminal, or give the tester's answers with --answers FILE",
                                 code: .unavailable)
        }
        var identifiers: [String: String] = [:]
        if let path = args.value(.accounts) {
            do {
                for entry in try SandboxAccountsFile.load(path, guard: RepositoryGuard()).entries {
                    switch entry.reference {
                    case .appleAccount(let address): identifiers[entry.alias] = address
                    case .testerId(let id): identifiers[entry.alias] = id
                    }
                }
            } catch {
                throw AppStoreOptions.failure(error, console: console)
            }
        }
        let hashes = identifiers.mapValues { RunManifest.accountHash(identifier: $0, salt: salt) }
        return Guided(prompter: prompter, identifiers: identifiers, hashes: hashes, build: build, device: device, os: os,
                      serverCheck: try serverCheck(args, app: matrix.app),
                      guidance: args.value(.answers).map { "answers file \($0) (scripted: waits were not slept)" } ?? "interactive")
    }

    /// The App Store Server API cross-check, when credentials are given; without them the run records only what
    /// the tester reports, and says so.
    func serverCheck(_ args: Arguments, app: AppInfo) throws(CommandFailure) -> (any ServerCheck)? {
        let bundleId = app.bundleId
        let options = try AppStoreOptions(args)
        let credentials: AppStoreCredentials
        do {
            credentials = try CredentialsLoader.load(file: options.credentialsFile, environment: ProcessInfo.processInfo.environment,
                                                     guard: RepositoryGuard())
        } catch {
            if error.kind == .missing {
                console.info("no App Store Server API credentials: steps are judged on what the tester reports only (see docs/app-store-api.md)")
                return nil
            }
            throw AppStoreOptions.failure(error, console: console)
        }
        if app.bundleIdGuessed {
            // The Server API answers for the app a bundle id names: a guess would check another app, or none.
            throw CommandFailure("app.bundleId \"\(bundleId)\" was guessed by matrix init (bundleIdGuessed); set your app's bundle id in the "
                                 + "matrix and remove bundleIdGuessed before cross-checking with the App Store Server API", code: .dataError)
        }
        do {
            let client = try AppStoreServerAPIClient(
                credentials: credentials, bundleId: bundleId,
                configuration: .init(environment: .sandbox, baseURL: options.baseURL, timeout: options.timeout, retry: options.retry))
            console.info("cross-checking every step with the App Store Server API (Sandbox)")
            return AppStoreServerCheck(client: client)
        } catch {
            throw AppStoreOptions.failure(error)
        }
    }

    func makeAdapter(_ environment: EnvironmentKind, schedule: RenewalSchedule, clockGiven: Bool, signedEnvironment: SignedEnvironment,
                     faults: [AppFault], guided: Guided?, args: Arguments) throws(CommandFailure) -> any EnvironmentAdapter {
        switch environment {
        case .local:
            do {
                return try LocalAdapter(schedule: schedule, signedEnvironment: signedEnvironment, app: .reference(faults: faults))
            } catch {
                throw CommandFailure("the local environment is unavailable: \(error)", code: .unavailable)
            }
        case .sandbox, .testflight:
            guard let guided else { throw CommandFailure("internal: no guided setup", code: .software) }
            if !faults.isEmpty { throw .usage("--app-fault is for the local environment; a guided run tests your own build") }
            var guidedSchedule: RenewalSchedule = environment == .sandbox ? .sandbox(.default) : .testFlight
            if clockGiven {
                guard case .sandbox = schedule.kind, environment == .sandbox else {
                    throw .usage("--clock for --env \(environment) must be \(environment == .sandbox ? "sandbox:<3|5|15|30|60> (the tester's renewal rate)" : "testflight or left out")")
                }
                guidedSchedule = schedule
            }
            // The instructions name an account's e-mail address only to a person at a terminal, never in a CI log.
            return GuidedAdapter(environment: environment, schedule: guidedSchedule, build: guided.build, device: guided.device,
                                 os: guided.os, accounts: console.errIsTerminal ? guided.identifiers : [:], prompter: guided.prompter,
                                 serverCheck: guided.serverCheck)
        case .app:
            // The team's own StoreKit code is compiled into its own tests or driver, not into this tool.
            throw CommandFailure("the app environment runs your own StoreKit code, which this tool cannot load: run the matrix from your "
                                 + "tests with AppHarness, or serve your app as a driver and use --env exec (docs/app-harness.md)",
                                 code: .unavailable)
        case .server:
            throw CommandFailure("internal: the server environment is set up from its options", code: .software)
        case .xcode:
            // Named by the design, not built yet: the environment exists, this version cannot reach it.
            throw CommandFailure("environment \"\(environment)\" is not available in this version of matrix; use --env local, exec, sandbox, "
                                 + "testflight or server (an Xcode test host can drive StoreKit Testing through --env exec, see docs/driver-protocol.md)",
                                 code: .unavailable)
        case .exec, .driver:
            throw args.rejection(environment.name, for: .env)
        }
    }

    /// The faults `names` name, each once, in the order given.
    static func faults(_ names: [String]) throws(CommandFailure) -> [AppFault] {
        var faults: [AppFault] = []
        for name in names {
            guard let value = AppFault(rawValue: name) else { throw Choices.appFaults.rejection(name, for: OptionKey.appFault.name) }
            if !faults.contains(value) { faults.append(value) }
        }
        return faults
    }

    /// The faults as evidence and run.json name them: `a` or `a,b`; `nil` for none.
    static func faultNames(_ faults: [AppFault]) -> String? {
        faults.isEmpty ? nil : faults.map(\.rawValue).joined(separator: ",")
    }


    /// When the run models StoreKit Testing in Xcode, which has no App Store server: how many steps expect
    /// server notifications that will not be judged. Cases with a clock of their own are judged by the loader.
    /// Apple: https://developer.apple.com/documentation/appstoreservernotifications/environment
    static func unsentNotificationsWarning(_ matrix: Matrix, schedule: RenewalSchedule, signedEnvironment: SignedEnvironment) -> String? {
        guard schedule.environment == .xcode || !signedEnvironment.sendsServerNotifications else { return nil }
        let steps = matrix.cases.filter { matrix.storeSettings(for: $0).clock == nil }.flatMap(\.steps)
            .filter { !($0.expect?.notifications ?? []).isEmpty }.count
        guard steps > 0 else { return nil }
        let why = schedule.environment == .xcode ? "StoreKit Testing in Xcode (--clock \(schedule))" : "\(signedEnvironment) signed data"
        return "\(steps) step\(steps == 1 ? "" : "s") expect App Store Server Notifications, which \(why) never sends; "
            + "those expectations are not judged (expect \"serverNotifications\": false instead)"
    }

    /// What `--clock xcode` alone chose, when a tester may not expect it: real time (Xcode's default) when the
    /// catalog sets no `_timeRate` or sets 0, or a rate Apple deprecated. `nil` for every other clock.
    /// Apple: https://developer.apple.com/documentation/storekittest/sktestsession/timerate-swift.enum
    static func xcodeClockNote(_ text: String?, schedule: RenewalSchedule, matrix: Matrix) -> String? {
        guard text?.lowercased() == "xcode", case .xcode(let rate) = schedule.kind else { return nil }
        if rate.isDeprecated {
            return "note: --clock xcode takes the catalog's time rate, _timeRate \(rate.rawValue): \(rate.name), which Apple deprecated"
                + (rate.replacement.map { " (its replacement is \($0.name), --clock xcode:\($0.rawValue))" } ?? "")
        }
        guard schedule.usesCalendar else { return nil }
        let why = matrix.catalog.settings.timeRate == nil ? "sets no _timeRate" : "sets _timeRate 0"
        return "note: --clock xcode takes the catalog's time rate, and the catalog \(why): the run models StoreKit Testing "
            + "in Xcode at real time (xcode:0, Xcode's default), so subscriptions renew after calendar periods; "
            + "--clock xcode:13 models a monthly renewal every 5 minutes"
    }

    static func schedule(_ text: String?, matrix: Matrix) throws(CommandFailure) -> RenewalSchedule {
        guard let text else { return .real }
        guard Choices.clock.match(text) != nil else { throw Choices.clock.rejection(text, for: OptionKey.clock.name) }
        switch RenewalSchedule.parse(text, storeKitTimeRate: matrix.catalog.settings.timeRate) {
        case .success(let parsed): return parsed
        case .failure(let problem): throw .usage("--clock: \(problem.message)")
        }
    }

    /// A path relative to the working directory when it lies below it.
    static func displayPath(_ url: URL) -> String {
        let path = url.standardizedFileURL.path
        let cwd = FileManager.default.currentDirectoryPath
        return path.hasPrefix(cwd + "/") ? String(path.dropFirst(cwd.count + 1)) : path
    }

    /// A random salt for account hashes.
    static func makeSalt() -> String {
        (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }
}
