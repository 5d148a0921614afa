import HarnessRunner

extension HarnessOptions {
    /// Options for a test's harness run whose time limits are not what it tests: 120 s to settle and 600 s for a
    /// call into the app instead of 10 s and 60 s.
    ///
    /// The limits are wall-clock safety nets. A test process whose cores another process keeps busy, with every
    /// test of the suite starting at once, can wait a minute for a thread while the app under test is fine, and
    /// the default limits would then error its steps. A call that never returns still ends the case, later.
    public static func unhurried(reportsDirectory: String?, jobs: Int = 1, build: String = "unspecified",
                                 settleLimit: Duration = .seconds(120), signing: Bool = true) -> HarnessOptions {
        HarnessOptions(reportsDirectory: reportsDirectory, jobs: jobs, build: build, settleLimit: settleLimit,
                       signing: signing, callLimit: .seconds(600))
    }
}
