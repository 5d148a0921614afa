import AppHarnessDriver
import DriverKit
import Foundation
import LocalEnvironment
import MatrixModel
import ReferenceApp

/// `matrix driver local`: serves the embedded environment over the driver protocol on stdin and stdout.
struct DriverCommand {
    let console: Console

    static let local = CommandSpec(
        ["driver", "local"], summary: "Serve the embedded environment over the driver protocol (for --env exec)",
        usage: ["[options]"],
        discussion: """
            Serves the embedded local environment (App Store simulator and reference app) over the driver protocol \
            (docs/driver-protocol.md): requests on stdin, responses on stdout, log on stderr. It is what \
            `matrix run MATRIX --env exec --driver "matrix driver local"` starts, and the reference for other drivers.
            Exit status: 0 after shutdown or the end of input, 74 when responses cannot be written.
            """,
        options: [
            .value(.appFault, "NAME", "run the reference app with a known bug (see `matrix faults`); repeatable, for several at once",
                   choices: .appFaults, repeatable: true),
            .value(.signedEnvironment, "ENV", "environment written in signed data: Sandbox, Production, Xcode, LocalTesting (default: Xcode with an xcode clock, else Sandbox)",
                   choices: .signedEnvironments),
            .value(.clock, "CLOCK", "clock to model: real (default), xcode[:timeRate], sandbox:<3|5|15|30|60>, testflight", choices: .clock),
            .flag(.noSigning, "leave signed data out of observations"),
        ])

    static let spec = CommandSpec(
        ["driver"], summary: "Serve an environment over the driver protocol",
        discussion: """
            Serves an environment over the driver protocol (docs/driver-protocol.md), for `matrix run --env exec`. \
            This version has one: local.
            """,
        subcommands: [local])

    func execute(_ arguments: [String]) async throws(CommandFailure) -> ExitCode {
        let args = try Arguments(arguments, options: Self.local.options(under: Self.spec))
        if args.has(.help) {
            console.output(args.positionals.first == Self.local.name
                ? HelpText.command(Self.local, under: Self.spec, width: console.width) : HelpText.command(Self.spec, width: console.width))
            return .success
        }
        // The protocol is spoken on stdout: closed, nothing would reach the runner.
        if console.outputClosed { throw .standardOutput(errno: EBADF) }
        let names = Self.spec.subcommands.map(\.name).joined(separator: ", ")
        guard let name = args.positionals.first else { throw .usage("missing the driver to serve; this version has: \(names)") }
        guard name == Self.local.name, args.positionals.count == 1 else {
            throw .usage(args.positionals.count > 1 ? "driver takes one name, got \(args.positionals.count)" : "unknown driver \"\(name)\"; this version has: \(names)")
        }
        let faults = try RunCommand.faults(args.all(.appFault))
        let signedEnvironment = try args.choice(.signedEnvironment, as: SignedEnvironment.self) ?? .following(clock: args.value(.clock))
        let driver = LocalDriver(signedEnvironment: signedEnvironment, signing: !args.has(.noSigning),
                                 clock: args.value(.clock), version: MatrixCommand.version, app: .reference(faults: faults))
        switch await DriverServer.serveStandardIO(driver) {
        case .shutdown, .endOfInput:
            return .success
        case .outputFailed(let reason):
            throw CommandFailure("cannot write responses: \(reason)", code: .ioError)
        }
    }
}
