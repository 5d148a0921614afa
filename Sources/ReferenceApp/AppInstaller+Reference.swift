import HarnessCore
import Threading

extension AppInstaller {
    /// The reference app, with the known bugs `faults` (none by default): what `--env local`, `matrix score`,
    /// `matrix plan` and a server run with no driver play. It runs on the run's own thread when there is one.
    public static func reference(faults: [AppFault] = []) -> AppInstaller {
        AppInstaller(runsOnCaseThread: true) { matrix in
            ReferenceApp(matrix: matrix, faults: faults, preferring: PreferredExecutor.current)
        }
    }
}
