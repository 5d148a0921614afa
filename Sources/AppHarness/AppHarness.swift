import HarnessCore
@_exported import HarnessRunner
import Foundation
import LocalEnvironment
import MatrixEngine
import MatrixJSON
import MatrixModel
import SimulatedStoreKit

/// Runs a matrix against a team's own StoreKit code, in-process, on the embedded App Store: the `app`
/// environment.
///
/// The app is an ``AppUnderTest`` the team writes around its Store class, compiled against SimulatedStoreKit
/// instead of StoreKit. ``run(matrix:options:app:)`` runs from the team's tests (Swift Testing or XCTest) and
/// writes the standard run directory; `AppHarness.serveDriver(options:app:)` (the `AppHarnessDriver` library)
/// serves the same harness over the driver protocol, so `matrix run MATRIX --env exec --driver "swift run
/// my-store-driver"` gets every command-line feature (compare, shards, resume).
public enum AppHarness {
    /// How a harness run is set up.
    public typealias Options = HarnessOptions

    /// Runs every case of the matrix at `path` against the app `app` makes (one object per installation).
    ///
    /// - Returns: the run's outcome, with every step that did not pass located in the matrix file.
    /// - Throws: ``AppHarnessError`` when the matrix cannot be read or loaded (its diagnostics in the message),
    ///   the clock is not a clock, or the evidence cannot be written.
    public static func run(matrix path: String, options: Options = Options(),
                           app: @escaping @Sendable () -> any AppUnderTest) async throws -> AppHarnessResult {
        try await HarnessRun.run(matrix: path, options: options) { _, schedule in
            try LocalAdapter(schedule: schedule, signedEnvironment: options.signedEnvironment, signing: options.signing,
                             environment: .app, app: .app(app), settleLimit: options.settleLimit, callLimit: options.callLimit)
        }
    }
}
