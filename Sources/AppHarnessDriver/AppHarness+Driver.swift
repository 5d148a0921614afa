import AppHarness
import DriverKit
import HarnessCore
import MatrixModel

extension AppHarness {
    /// Serves the harness over the driver protocol on standard input and output, until `shutdown` or the end
    /// of input: a driver executable for `matrix run MATRIX --env exec --driver "…"`.
    ///
    /// - Returns: the exit status for `main`: 0 after shutdown or the end of input, 74 when responses cannot be
    ///   written.
    public static func serveDriver(options: Options = Options(), app: @escaping @Sendable () -> any AppUnderTest) async -> Int32 {
        let driver = LocalDriver(signedEnvironment: options.signedEnvironment, signing: options.signing, clock: options.clock,
                                 version: ToolVersion.current, environment: EnvironmentKind.appDriverName, app: .app(app),
                                 settleLimit: options.settleLimit, callLimit: options.callLimit)
        switch await DriverServer.serveStandardIO(driver) {
        case .shutdown, .endOfInput: return 0
        case .outputFailed: return 74
        }
    }
}
