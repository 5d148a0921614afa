import Foundation
import ReferenceApp

/// `matrix faults`: the app faults `--app-fault` accepts, one per line with what the app then does wrong.
struct FaultsCommand {
    let console: Console

    static let spec = CommandSpec(
        ["faults"], summary: "List the known app faults for --app-fault",
        discussion: """
            Lists the app faults the reference app can be given (`matrix run --app-fault NAME`, `matrix score`), each \
            with the mistake it makes. Exit status: 0 listed, 64 usage.
            """)

    func execute(_ arguments: [String]) throws(CommandFailure) -> ExitCode {
        guard let args = try Arguments.parse(arguments, for: Self.spec, on: console) else { return .success }
        guard args.positionals.isEmpty else { throw .usage("faults takes no arguments, got \"\(args.positionals[0])\"") }
        let width = AppFault.allCases.map(\.rawValue.count).max() ?? 0
        for fault in AppFault.allCases {
            console.output(fault.rawValue.padding(toLength: width + 2, withPad: " ", startingAt: 0) + fault.summary + "\n")
        }
        return .success
    }
}
