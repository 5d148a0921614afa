import MatrixModel

/// Makes the app under test for each new installation on a case's devices: a device's first launch, a reinstall,
/// another device. Each call is a fresh install (empty storage); a relaunch keeps the object it made.
public struct AppInstaller: Sendable {
    private let make: @Sendable (Matrix) -> any AppUnderTest
    /// Whether a run with one job keeps its cases on one thread of its own (`CaseThread`). The reference app runs
    /// there; a team's app keeps the shared pool, where a call that a killed process left behind runs beside the
    /// runner rather than ahead of it.
    public let runsOnCaseThread: Bool

    /// An installer that makes apps with `make`, given the run's matrix.
    public init(runsOnCaseThread: Bool = false, _ make: @escaping @Sendable (Matrix) -> any AppUnderTest) {
        self.make = make
        self.runsOnCaseThread = runsOnCaseThread
    }

    /// An installer for a team's own app, which needs no matrix to start.
    public static func app(_ make: @escaping @Sendable () -> any AppUnderTest) -> AppInstaller {
        AppInstaller { _ in make() }
    }

    /// A fresh installation of the app, for a case of `matrix`.
    public func install(for matrix: Matrix) -> any AppUnderTest {
        make(matrix)
    }
}
