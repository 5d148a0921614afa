import Foundation
import MatrixJSON
import SignedData
import Signing

/// `matrix pki`: the simulator's signing chain for backends under test: `export-root` writes the root to
/// trust, `sign` signs payloads as the simulator signs App Store data.
struct PKICommand {
    let console: Console

    static let exportRoot = CommandSpec(
        ["pki", "export-root"], summary: "Write the simulator root certificate for a backend under test to trust",
        usage: ["[--pem] [--out FILE]"],
        discussion: """
            Writes the simulator root certificate: DER by default (refused on a terminal), PEM with --pem. Its \
            SHA-256 fingerprint goes to stderr. A backend under test trusts it instead of Apple Root CA - G3 to \
            accept the simulator's signed data.
            """ + exitStatus,
        options: [
            .flag(.pem, "write PEM text instead of DER"),
            .value(.out, "FILE", "write to FILE instead of stdout (never replaced without --force)"),
            .flag(.force, "replace FILE when it exists"),
        ])

    static let sign = CommandSpec(
        ["pki", "sign"], summary: "Sign a payload (or many) with the simulator's chain, as the simulator does",
        usage: ["[PAYLOAD] [--count N] [--out FILE]"],
        discussion: """
            Signs the JSON object in PAYLOAD (or stdin) as an ES256 JWS with x5c = leaf, intermediate, root, and \
            writes it; with --count N, N times (each signature differs), and the signing rate goes to stderr.
            """ + exitStatus,
        positionals: [Positional("[PAYLOAD]", "a JSON file, or - (the default) for stdin")],
        options: [
            .value(.count, "N", "sign the payload N times, one JWS per line (default 1)"),
            .value(.out, "FILE", "write to FILE instead of stdout (never replaced without --force)"),
            .flag(.force, "replace FILE when it exists"),
        ])

    static let spec = CommandSpec(
        ["pki"], summary: "The simulator's signing chain, for backends under test",
        discussion: """
            The simulator signs every transaction, renewal info and notification with its own test chain (leaf, \
            intermediate, root; NOT Apple's). A backend under test trusts the simulator root instead of Apple Root \
            CA - G3 to accept that data.
            """ + exitStatus,
        subcommands: [exportRoot, sign])

    private static let exitStatus = """


        Exit status: 0 written, 64 usage, 65 PAYLOAD is not a JSON object, 66 PAYLOAD cannot be read, 74 FILE \
        cannot be written.
        """

    func execute(_ arguments: [String]) throws(CommandFailure) -> ExitCode {
        guard let sub = arguments.first else { throw .usage("missing pki command: export-root or sign") }
        let rest = Array(arguments.dropFirst())
        switch sub {
        case OptionKey.help.name, "-h", HelpCommand.spec.name:
            console.output(HelpText.command(Self.spec, width: console.width))
            return .success
        case Self.exportRoot.name:
            return try writeRoot(rest)
        case Self.sign.name:
            return try signPayloads(rest)
        default:
            let hint = Suggestion.nearest(sub, among: Self.spec.subcommands.map(\.name)).map { "; did you mean \($0)?" } ?? ""
            throw .usage("unknown pki command \"\(sub)\"\(hint)")
        }
    }

    private func writeRoot(_ arguments: [String]) throws(CommandFailure) -> ExitCode {
        guard let args = try Arguments.parse(arguments, for: Self.exportRoot, under: Self.spec, on: console) else { return .success }
        guard args.positionals.isEmpty else { throw .usage("export-root takes no arguments, got \"\(args.positionals[0])\"") }
        let root = try Self.pki().root
        let data = args.has(.pem) ? Data(root.pemRepresentation.utf8) : Data(root.derRepresentation)
        if let path = args.value(.out) {
            try OutputFile.write(data, to: path, replacing: args.has(.force), console: console)
        } else {
            if !args.has(.pem), isatty(STDOUT_FILENO) == 1 {
                throw .usage("refusing to write binary DER to a terminal; pass --pem, --out FILE, or redirect stdout")
            }
            console.outputData(data)
        }
        console.info("\(root.subjectSummary)")
        console.info("SHA-256 fingerprint \(root.sha256Fingerprint); valid \(Self.day(root.notBefore)) to \(Self.day(root.notAfter))")
        return .success
    }

    private func signPayloads(_ arguments: [String]) throws(CommandFailure) -> ExitCode {
        guard let args = try Arguments.parse(arguments, for: Self.sign, under: Self.spec, on: console) else { return .success }
        guard args.positionals.count <= 1 else { throw .usage("sign takes one PAYLOAD, got \(args.positionals.count)") }
        let count = try args.int(.count, in: 1...10_000_000) ?? 1
        let source = args.positionals.first ?? "-"
        let bytes: [UInt8]
        if source == "-" {
            guard isatty(STDIN_FILENO) != 1 else { throw .usage("missing PAYLOAD (a JSON file, or - with the JSON on stdin)") }
            bytes = try InputFiles.readStandardInput(what: "the payload")
        } else {
            bytes = try InputFiles.readArgument(source, what: "payload")
        }
        guard case .success(let parsed) = JSONReader.parse(bytes), parsed.objectValue != nil else {
            throw CommandFailure("\(source == "-" ? "stdin" : source) is not a JSON object; App Store payloads are JSON objects", code: .dataError)
        }
        let signer = try Self.pki().signer
        let payload = Data(bytes)
        let output = try OutputFile.open(args.value(.out), replacing: args.has(.force), console: console)
        defer { output.close() }
        let clock = ContinuousClock()
        var signing = Duration.zero
        var buffer: [UInt8] = []
        for _ in 0 ..< count {
            let started = clock.now
            let jws: String
            do {
                jws = try signer.sign(payload: payload)
            } catch {
                throw CommandFailure("cannot sign: \(error)", code: .software)
            }
            signing += clock.now - started
            buffer.append(contentsOf: jws.utf8)
            buffer.append(0x0A)
            if buffer.count >= 1 << 20 {
                try output.write(buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        try output.write(buffer)
        try output.commit()
        let seconds = Double(signing.components.seconds) + Double(signing.components.attoseconds) / 1e18
        if count > 1 {
            console.info(String(format: "signed %d JWS in %.3f s of signing, %.0f per second", count, seconds, seconds > 0 ? Double(count) / seconds : 0))
        }
        return .success
    }

    private static func pki() throws(CommandFailure) -> SimulatorPKI {
        do {
            return try SimulatorPKI.default
        } catch {
            throw CommandFailure("the embedded simulator PKI cannot be loaded: \(error)", code: .software)
        }
    }

    private static func day(_ date: Date) -> String {
        Date.ISO8601FormatStyle().year().month().day().format(date)
    }
}
