/// The version of StoreKit Matrix, recorded in every run manifest and archive.
///
/// `matrix verify` renders a run's reports again and compares them with the run's only when the run was recorded
/// by this version, so the version changes whenever what a report says changes (a line added, a word changed):
/// otherwise an unaltered run of the same version would verify as ALTERED. `ReportWordingVersionTests` holds the
/// golden reports' fingerprint for each version and fails when the reports change under the same one.
public enum ToolVersion {
    public static let current = "0.2.0"
}
