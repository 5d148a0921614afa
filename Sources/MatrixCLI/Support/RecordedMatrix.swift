import Foundation
import Reporters
import SignedData

/// Where the matrix of a recorded run is now. `run.json` keeps the matrix path the run was given, which is
/// relative to the directory the run started in; commands that read a run later (`run --resume`, `verify`,
/// `merge`, `archive`) may be elsewhere, and a file of the same name there may be another matrix.
enum RecordedMatrix {
    /// A matrix file found for a run.
    struct Found {
        var path: String
        /// Whether its SHA-256 is the one `run.json` recorded.
        var unchanged: Bool
    }

    /// The paths to try for `recordedPath`, in order: as given (from here), then, when relative, from each
    /// directory above `runDirectory` (runs live in `reports/<environment>/<build>/<run-id>/` under the
    /// directory they started in, unless `--out` put them elsewhere).
    static func candidates(_ recordedPath: String, runDirectory: URL?) -> [String] {
        var candidates = [recordedPath]
        if !recordedPath.hasPrefix("/"), var directory = runDirectory?.standardizedFileURL {
            while directory.path != "/" {
                directory = directory.deletingLastPathComponent()
                let candidate = directory.appendingPathComponent(recordedPath).path
                if !candidates.contains(candidate) { candidates.append(candidate) }
            }
        }
        return candidates
    }

    /// The first candidate whose contents have the SHA-256 `manifest` recorded; else the first that exists
    /// (the matrix changed since the run, or a file of the same name is another matrix); `nil` when none exists.
    static func locate(_ manifest: RunManifest, runDirectory: URL?) -> Found? {
        var firstExisting: String?
        for path in candidates(manifest.matrix.path, runDirectory: runDirectory) {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            if firstExisting == nil { firstExisting = path }
            if let data = FileManager.default.contents(atPath: path), SHA256.hexHash(data) == manifest.matrix.sha256 {
                return Found(path: path, unchanged: true)
            }
        }
        return firstExisting.map { Found(path: $0, unchanged: false) }
    }
}
