import Foundation
import FileIO
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// GitHub Actions' job summary: Markdown appended to the file that `GITHUB_STEP_SUMMARY` names.
///
/// GitHub: https://docs.github.com/en/actions/writing-workflows/choosing-what-your-workflow-does/workflow-commands-for-github-actions#adding-a-job-summary
public enum GitHubStepSummary {
    /// The environment variable that names the summary file.
    public static let variable = "GITHUB_STEP_SUMMARY"

    /// Appends `markdown` (and a newline if it lacks one) to the file `environment["GITHUB_STEP_SUMMARY"]`
    /// names, creating it if needed.
    ///
    /// - Parameters:
    ///   - markdown: the text, e.g. ``MarkdownSummary/render(records:manifest:)``.
    ///   - environment: the process environment, passed in by the caller.
    /// - Returns: the file appended to, or `nil` when the variable is unset or empty (nothing is written).
    /// - Throws: ``EvidenceWriteError`` with code `cannotWrite` when the file cannot be opened or written.
    @discardableResult
    public static func append(_ markdown: String, environment: [String: String]) throws -> URL? {
        guard let path = environment[variable], !path.isEmpty else { return nil }
        var bytes = Array(markdown.utf8)
        if bytes.last != 0x0A { bytes.append(0x0A) }
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw EvidenceWriteError.system(.cannotWrite, path: path, doing: "open the job summary", errno: errno)
        }
        defer { _ = close(fd) }
        var offset = 0
        while offset < bytes.count {
            let written = try DurableFile.writeOnce(fd, bytes[offset...], path: path)
            if written == 0 {
                throw EvidenceWriteError(.cannotWrite, path: path, message: "cannot write the job summary \(path): the disk accepted no more bytes")
            }
            offset += written
        }
        return URL(fileURLWithPath: path)
    }
}
