import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A private directory under the system's temporary directory (`TMPDIR`) where reports set their parts aside
/// while the evidence is read; removed when the reports are written. Keeping it out of the run directory keeps
/// a run directory to its evidence and reports, even after a crash.
package final class ScratchDirectory {
    package let url: URL

    static let prefix = "matrix-reports-"

    /// Creates `$TMPDIR/matrix-reports-<pid>-<random>`, after removing those that processes killed before they
    /// could remove their own left behind.
    ///
    /// - Throws: ``EvidenceWriteError`` with code `cannotCreateDirectory`.
    package init() throws {
        let temporary = FileManager.default.temporaryDirectory
        Self.removeAbandoned(in: temporary)
        url = temporary.appendingPathComponent(Self.prefix + "\(ProcessInfo.processInfo.processIdentifier)-\(UInt32.random(in: 0...UInt32.max))")
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            throw EvidenceWriteError(.cannotCreateDirectory, path: url.path,
                                     message: "cannot create \(url.path) for the reports' parts: \(error.localizedDescription); "
                                         + "set TMPDIR to a writable directory")
        }
    }

    deinit {
        remove()
    }

    /// Removes the scratch directories in `temporary` whose process no longer exists.
    static func removeAbandoned(in temporary: URL) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: temporary.path) else { return }
        for name in names where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count).prefix { $0 != "-" }), pid > 0 else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH {
                try? FileManager.default.removeItem(at: temporary.appendingPathComponent(name))
            }
        }
    }

    /// Deletes the directory and what is in it.
    package func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
