import EvidenceArchive
import EvidenceStore
import Foundation
import Signing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import MatrixModel
import SignedData

/// Where the matrix of a recorded run is now. `run.json` keeps the matrix path the run was given, which is
/// relative to the directory the run started in; commands that read a run later (`run --resume`, `verify`,
/// `merge`, `archive`) may be elsewhere, and a file of the same name there may be another matrix.
package enum RecordedMatrix {
    /// The paths to try for `recordedPath`, in order: as given (from here), then, when relative, from each
    /// directory above `runDirectory` (runs live in `reports/<environment>/<build>/<run-id>/` under the
    /// directory they started in, unless `--out` put them elsewhere). None lies inside `runDirectory` or
    /// `excluded`: a run directory holds evidence, never the matrix it is judged against, which whoever wrote
    /// it would otherwise choose.
    private static func candidates(_ recordedPath: String, runDirectory: URL?, excluded: URL?) -> [String] {
        // Compared as the file system resolves them: a path through a link (`/proc/self/cwd/…`) is where it leads.
        let inside = [runDirectory, excluded].compactMap { $0.flatMap { realPath($0.path) } }.map { $0.hasSuffix("/") ? $0 : $0 + "/" }
        func allowed(_ path: String) -> Bool {
            guard let resolved = realPath(path) else { return true }  // nothing there to take
            return !inside.contains { resolved.hasPrefix($0) }
        }
        var candidates = allowed(recordedPath) ? [recordedPath] : []
        if !recordedPath.hasPrefix("/"), var directory = runDirectory?.standardizedFileURL {
            while directory.path != "/" {
                directory = directory.deletingLastPathComponent()
                let candidate = directory.appendingPathComponent(recordedPath).path
                if !candidates.contains(candidate), allowed(candidate) { candidates.append(candidate) }
            }
        }
        return candidates
    }

    /// `path` with every link resolved (`realpath(3)`); `nil` when it does not exist.
    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The path of the first candidate whose contents have the SHA-256 `manifest` recorded; else of the first
    /// that exists (the matrix changed since the run, or a file of the same name is another matrix, which the
    /// caller's own digest check then reports); `nil` when none exists.
    /// - Parameter excluded: a directory no candidate may lie in besides the run directory (the folder an
    ///   archive was unpacked into).
    package static func locate(_ manifest: RunManifest, runDirectory: URL?, excluded: URL? = nil) -> String? {
        var firstExisting: String?
        for path in candidates(manifest.matrix.path, runDirectory: runDirectory, excluded: excluded) {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            if firstExisting == nil { firstExisting = path }
            if let data = FileManager.default.contents(atPath: path), SHA256.hexHash(data) == manifest.matrix.sha256 {
                return path
            }
        }
        return firstExisting
    }
}
