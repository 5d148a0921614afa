import EvidenceArchive
import EvidenceStore
import EvidenceVerification
import Foundation
import MatrixJSON
import MatrixModel
import SignedData
import Signing

/// `matrix verify`: verifies one JWS like Apple's `SignedDataVerifier`, many JWS from a file, or proves a run
/// directory or run archive unaltered and re-verifies its signed data.
package struct VerifyCommand {
    let console: Console

    static let spec = CommandSpec(
        ["verify"], summary: "Verify a JWS like Apple's SignedDataVerifier, or prove a run or archive unaltered",
        usage: ["(JWS | FILE | RUN_DIR | ARCHIVE) [options]", "--batch FILE [options]"],
        discussion: """
            Verifies App Store signed data as Apple's SignedDataVerifier does (online checks off): ES256 only, exactly \
            three x5c certificates, the chain from the leaf through the intermediate to a trusted root at the payload's \
            signedDate, both Apple marker OIDs, the signature, then bundle id and environment. Like every \
            ECDSA verifier, Apple's included, it accepts both (r, s) and (r, n-s) for a signature: a JWS proves who \
            signed a payload, and a run's SHA-256 list pins the exact bytes of its evidence.

              JWS or FILE  a compact JWS, or a file holding one (- reads stdin). The decoded payload goes to stdout, \
            the verdict to stderr. Default root: apple.
              RUN_DIR      a run directory: the SHA-256 of every file listed in run.json (and any file that is \
            missing or not listed), then every JWS in evidence.jsonl, and the transaction and \
            renewal info inside each notification as JWS of their own. Default root: simulator for a \
            local run, apple otherwise. The bundle id comes from --bundle-id, else from the run's \
            matrix when it is readable and unchanged (looked for at the recorded path, from here \
            and from each directory above the run; --matrix names it). A run that did not end \
            (no endedAt) has no SHA-256 of its final evidence: evidence.jsonl is UNVERIFIABLE and the run \
            does not verify until it is resumed to its end (its records are still checked).
              ARCHIVE      a file written by `matrix archive`: unpacked to a temporary directory and checked against \
            archive.json (every file, run.json included), then as a run directory. Only regular files and directories \
            are unpacked, at most 10,000 members, 1 GiB a member, 2 GiB in all, within 10 minutes; a link, a device, a \
            sparse file, a name outside the directory or past a limit refuses the archive (65).

            Without --environment each JWS is checked against the environment its payload names (a run's against \
            the signedEnvironment its run.json records), and without --bundle-id the bundle id is not compared; notes \
            on stderr say what was not compared. Whatever the data says, its signature is checked: only --environment \
            Xcode or --environment LocalTesting accepts data of that environment decoded but unverified, as Apple's \
            SignedDataVerifier does when its caller creates it for Xcode or LocalTesting (StoreKit Testing in Xcode \
            signs with a key of its own); the output says so. run.json and archive.json are not signed: they prove \
            that files are unchanged since they were written, not who wrote them. A run directory's evidence must also \
            agree with itself: seq numbers without gaps or repeats, each step once, each pass or fail the verdict its \
            expected and observed values give (re-judged when the run's matrix is readable and unchanged), a complete \
            run's counts in run.json, and what each record claims with its own signed items: each signed transaction \
            one of the step's transactionIds, observed transactions and entitlements as the signed payloads have them, \
            the reported notifications the signed ones; a local run also signs every transaction and notification a \
            step reports, at the step's store time, and never puts one signed item in two records. Each report run.json \
            lists (junit.xml, summary.md, report.html) is rendered again from run.json and the evidence, as `matrix \
            report` renders it, and must have the SHA-256 run.json lists: a report that does not is named as not \
            matching the evidence. Evidence, run.json and archive.json that name a JSON key twice are refused.

            Exit status: 0 everything verified, 1 something did not, 64 usage, 65 the input is not a JWS, run \
            directory or archive (or an archive past a limit), 66 the input cannot be read, 69 gzip is unavailable, 74 \
            the temporary directory cannot be written, 130 interrupted (the temporary directory is removed).
            """,
        positionals: [Positional("INPUT", "a JWS, a file holding one, a run directory or an archive (- reads stdin)")],
        options: [
            .value(.root, "ROOT", "trust anchor: apple (Apple Root CA - G3), simulator, or a certificate file; repeatable",
                   choices: Choices(["apple", "simulator"], open: true), repeatable: true),
            .value(.bundleId, "ID", "the app's bundle id to require"),
            .value(.environment, "ENV", "Sandbox, Production, Xcode or LocalTesting to require", choices: .signedEnvironments),
            .value(.appAppleId, "N", "the app's Apple id (compared for Production notifications)"),
            .value(.kind, "KIND", "transaction, renewalInfo, notification or appTransaction (default: from the payload)",
                   choices: Choices(VerifiedSignedData.Kind.self)),
            .value(.matrix, "MATRIX", "RUN_DIR or ARCHIVE: the run's matrix, when not at the path run.json recorded"),
            .flag(.withoutMatrix, "RUN_DIR or ARCHIVE: verify files and signatures when the run's matrix cannot be used, without judging records again"),
            .value(.batch, "FILE", "verify every JWS in FILE, one per line (- for stdin)"),
            .value(.format, "FORMAT", "text (default) or json", choices: .textOrJSON),
            .flag(.quiet, "runs and batches: print only what failed"),
            .flag(.verbose, "runs and archives: a line for every file and record, not only those that fail"),
        ])

    func execute(_ arguments: [String]) throws(CommandFailure) -> ExitCode {
        guard let args = try Arguments.parse(arguments, for: Self.spec, on: console) else { return .success }
        console.quiet = args.has(.quiet)
        console.verbose = args.has(.verbose)
        let format = try args.choice(.format) ?? "text"
        let environment = try args.choice(.environment)
        var appAppleId: Int64?
        if let text = args.value(.appAppleId) {
            guard let number = Int64(text), number >= 0 else { throw .usage("--app-apple-id must be a whole number, not \"\(text)\"") }
            appAppleId = number
        }
        let kind = try args.choice(.kind, as: VerifiedSignedData.Kind.self)
        let settings = Settings(rootNames: args.all(.root), bundleId: args.value(.bundleId), environment: environment,
                                appAppleId: appAppleId, kind: kind, json: format == "json", matrixPath: args.value(.matrix),
                                withoutMatrix: args.has(.withoutMatrix))
        if settings.withoutMatrix, settings.matrixPath != nil { throw .usage("--without-matrix and --matrix exclude each other") }

        if let batch = args.value(.batch) {
            guard args.positionals.isEmpty else { throw .usage("--batch takes the JWS from FILE; give no other input") }
            return try BatchVerification(console: console, settings: settings).run(batch)
        }
        guard args.positionals.count == 1, let input = args.positionals.first else {
            throw .usage(args.positionals.isEmpty ? "missing what to verify (a JWS, a file, a run directory or an archive)"
                                                  : "verify takes one input, got \(args.positionals.count)")
        }
        let target = try Self.classify(input)
        if case .jws(let text, let source) = target { return try verifyOne(text, source: source, settings: settings) }
        guard kind == nil else { throw .usage("--kind applies to a JWS; a run's evidence names the kind of each item") }
        // A signal stops the work where it is: gzip is ended, the temporary directory removed, and the exit is 130.
        let trap = SignalTrap()
        defer { trap.release() }
        let interruption = Interruption()
        trap.whenSignalled { interruption.interrupt() }
        var verification = settings.runVerification
        verification.interruption = interruption
        let result = try Self.verifying { () throws(VerificationFailure) in
            switch target {
            case .runDirectory(let url): try verification.verifyDirectory(url, display: input)
            case .archive(let url): try verification.verifyArchive(url, display: input)
            case .jws: throw VerificationFailure(.internalError, "internal: a JWS is not a run")
            }
        }
        return report(result, settings: settings)
    }

    /// What the command line asked to check with.
    struct Settings {
        var rootNames: [String]
        var bundleId: String?
        var environment: String?
        var appAppleId: Int64?
        var kind: VerifiedSignedData.Kind?
        var json: Bool
        var matrixPath: String?
        var withoutMatrix: Bool

        var runVerification: RunVerification {
            var verification = RunVerification(rootNames: rootNames, bundleId: bundleId, environment: environment, appAppleId: appAppleId,
                                               matrixPath: matrixPath, loadMatrix: InputFiles.matrixSources)
            verification.acceptsUnjudgedRecords = withoutMatrix
            return verification
        }

        func checker() throws(CommandFailure) -> SignedDataChecker {
            let roots = try VerifyCommand.verifying { () throws(VerificationFailure) in try TrustRoots.resolve(rootNames.isEmpty ? ["apple"] : rootNames) }
            return SignedDataChecker(roots: roots, bundleId: bundleId, environment: environment, appAppleId: appAppleId)
        }
    }

    /// Runs verification work, its failure ending the command with the exit code of its reason.
    static func verifying<Value>(_ work: () throws(VerificationFailure) -> Value) throws(CommandFailure) -> Value {
        do {
            return try work()
        } catch {
            throw CommandFailure(error)
        }
    }

    // MARK: - One JWS

    private func verifyOne(_ jws: String, source: String, settings: Settings) throws(CommandFailure) -> ExitCode {
        let checker = try settings.checker()
        let outcome = checker.check(jws, kind: settings.kind)
        let payload = outcome.payload.flatMap { JSONText(parsing: [UInt8]($0)) }
        if settings.json {
            let document = JSONText.fields([
                "input": JSONText.string(source),
                "kind": JSONText.optional(outcome.kind?.rawValue),
                "status": JSONText.string(outcome.status.rawValue),
                "code": JSONText.optional(outcome.code),
                "message": JSONText.optional(outcome.message),
                "signature": JSONText.optional(outcome.signature),
                "roots": JSONText.string(checker.roots.summary),
                "notes": JSONText.array(outcome.notes.map(JSONText.string)),
                "hint": JSONText.optional(outcome.hint),
                "payload": outcome.status == .failed ? nil : payload,
            ])
            console.output(document.text(.expanded) + "\n")
        } else if outcome.status != .failed, let payload {
            console.output(payload.text(.expanded) + "\n")
        }
        for note in outcome.notes { console.info("note: \(note)") }
        let kind = outcome.kind?.rawValue ?? "JWS"
        switch outcome.status {
        case .verified:
            console.info("verified:", .green, "\(kind) from \(source); \(outcome.signature ?? "")", always: true)
            return .success
        case .notChecked:
            let environment = outcome.environment ?? "unsigned"
            console.info("decoded:", .yellow, "\(kind) from \(source); signature NOT checked "
                         + "(\(environment) data, accepted unsigned by --environment \(environment))", always: true)
            return .success
        case .failed:
            console.error("\(kind) from \(source) does not verify: \(outcome.failureText)")
            if let hint = outcome.hint { console.info("hint: \(hint)", always: true) }
            if settings.rootNames.isEmpty, outcome.code == "VERIFICATION_FAILURE", SimulatorPKI.isSimulatorSigned(jws) {
                console.info("hint: this JWS carries the StoreKit Matrix simulator's chain, which Apple's root does not trust; pass --root simulator", always: true)
            }
            return .failure
        }
    }

    // MARK: - Runs and archives

    private func report(_ report: RunVerificationReport, settings: Settings) -> ExitCode {
        if settings.json {
            console.output(report.json.text(.expanded) + "\n")
        } else {
            // A summary by default: the lines of what did not verify, then the closing sentence; every file and
            // record with --verbose.
            let lines = report.lines(onlyProblems: !console.verbose)
            if !lines.isEmpty { console.outputText(lines.joined(separator: "\n") + "\n") }
        }
        // One line each, whatever the run's files put in them.
        for note in report.notes { console.info("note: " + TerminalText.visible(note)) }
        // Shown even with --quiet: what a pass does not cover.
        for warning in report.warnings { console.info("warning:", .yellow, TerminalText.visible(warning), always: true) }
        if report.passed {
            console.info("verified:", .green, report.summary, always: true)
            return .success
        }
        console.error(report.summary)
        return .failure
    }

    // MARK: - Input

    /// What a command-line input names.
    enum Target {
        case jws(String, source: String)
        case runDirectory(URL)
        case archive(URL)
    }

    /// Tells a JWS, a file holding one, a run directory and an archive apart.
    /// - Throws: ``CommandFailure`` 66 when the input names nothing readable, 65 when it is something else.
    static func classify(_ input: String) throws(CommandFailure) -> Target {
        if input == "-" {
            let data = try InputFiles.readStandardInput(what: "the JWS")
            let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard looksLikeJWS(text) else { throw CommandFailure("standard input does not hold a compact JWS", code: .dataError) }
            return .jws(text, source: "stdin")
        }
        var info = stat()
        guard stat(input, &info) == 0 else {
            if looksLikeJWS(input) { return .jws(input, source: "the command line") }
            throw CommandFailure("cannot read \(input): \(errno == ENOENT ? "no such file or directory" : String(cString: strerror(errno)))",
                                 code: .noInput)
        }
        if info.st_mode & S_IFMT == S_IFDIR { return .runDirectory(URL(fileURLWithPath: input)) }
        let bytes = try InputFiles.readPrefix(input, count: 2)
        if RunArchive.looksLikeArchive(bytes) { return .archive(URL(fileURLWithPath: input)) }
        let text = String(decoding: try InputFiles.readArgument(input, what: "input"), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard looksLikeJWS(text) else {
            throw CommandFailure("\(input) is neither a compact JWS, a run directory nor a run archive (.tar.gz from matrix archive)",
                                 code: .dataError)
        }
        return .jws(text, source: input)
    }

    /// Three dot-separated parts whose first decodes to a JSON object: a compact JWS, or a damaged one worth
    /// verifying to say what is wrong with it.
    static func looksLikeJWS(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let header = Base64URL.decode(parts[0]) else { return false }
        return header.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) } == UInt8(ascii: "{")
    }
}
