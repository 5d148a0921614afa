import Foundation
import DriverKit
import LocalEnvironment
import MatrixJSON
import ReferenceApp

/// `matrix driver local`: serves the embedded environment over the driver protocol on stdin and stdout.
struct DriverCommand {
    let console: Console

    static let options: [Arguments.Option] = [
        .init(name: "--app-fault", takesValue: true, help: "run the reference app with a known bug (see `matrix faults`)", valueName: "NAME"),
        .init(name: "--signed-environment", takesValue: true, help: "environment written in signed data: Sandbox (default), Production, Xcode, LocalTesting", valueName: "ENV"),
        .init(name: "--clock", takesValue: true, help: "clock to model: real (default), xcode[:timeRate], sandbox:<3|5|15|30|60>, testflight", valueName: "CLOCK"),
        .init(name: "--no-signing", takesValue: false, help: "leave signed data out of observations"),
        .init(name: "--help", takesValue: false, help: "show this help"),
    ]

    static let help = """
        USAGE: matrix driver local [options]

        Serves the embedded local environment (App Store simulator and reference app) over the driver protocol
        (docs/driver-protocol.md): requests on stdin, responses on stdout, log on stderr. It is what
        `matrix run MATRIX --env exec --driver "matrix driver local"` starts, and the reference for other drivers.
        Exit status: 0 after shutdown or the end of input, 74 when responses cannot be written.

        OPTIONS:
        \(Arguments.help(options))
        """

    func execute(_ arguments: [String]) async throws(CommandFailure) -> ExitCode {
        guard let args = try Arguments.parse(arguments, options: Self.options, help: Self.help, on: console) else { return .success }
        // The protocol is spoken on stdout: closed, nothing would reach the runner.
        if console.outputClosed { throw .standardOutput(errno: EBADF) }
        guard let name = args.positionals.first else { throw .usage("missing the driver to serve; this version has: local") }
        guard name == "local", args.positionals.count == 1 else {
            throw .usage(args.positionals.count > 1 ? "driver takes one name, got \(args.positionals.count)" : "unknown driver \"\(name)\"; this version has: local")
        }
        var fault: AppFault?
        if let value = args.value("--app-fault") {
            guard let known = AppFault(rawValue: value) else {
                let hint = Suggestion.nearest(value, among: AppFault.allCases.map(\.rawValue)).map { "; did you mean \($0)?" } ?? ""
                throw .usage("unknown app fault \"\(value)\"\(hint) (see `matrix faults`)")
            }
            fault = known
        }
        let signedEnvironment = try RunCommand.signedEnvironment(args.value("--signed-environment"))
        let driver = LocalDriver(signedEnvironment: signedEnvironment, fault: fault, signing: !args.has("--no-signing"),
                                 clock: args.value("--clock"), version: MatrixCommand.version)
        switch await DriverServer.serveStandardIO(driver) {
        case .shutdown, .endOfInput:
            return .success
        case .outputFailed(let reason):
            throw CommandFailure("cannot write responses: \(reason)", code: .ioError)
        }
    }
}
