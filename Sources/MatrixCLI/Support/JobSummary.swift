import Foundation
import EvidenceStore
import Reporters

/// GitHub Actions' job summary for `matrix run`: when `GITHUB_STEP_SUMMARY` is set, the run's `summary.md` is
/// appended to the file it names.
///
/// GitHub: https://docs.github.com/en/actions/writing-workflows/choosing-what-your-workflow-does/workflow-commands-for-github-actions#adding-a-job-summary
enum JobSummary {
    /// Appends `summary.md` of `directory`; a failure is a warning, as the evidence itself is complete.
    static func append(from directory: RunDirectory, environment: [String: String] = ProcessInfo.processInfo.environment,
                       console: Console) {
        guard let target = environment[GitHubStepSummary.variable], !target.isEmpty else { return }
        let source = directory.url.appendingPathComponent(MarkdownSummary.fileName)
        do {
            let markdown = try String(contentsOf: source, encoding: .utf8)
            try GitHubStepSummary.append(markdown, environment: environment)
        } catch {
            console.warning("cannot append the run's summary to the job summary \(target) (\(GitHubStepSummary.variable)): \(error)")
        }
    }
}
