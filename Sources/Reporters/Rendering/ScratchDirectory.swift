import Foundation

/// A private directory under the system's temporary directory (`TMPDIR`) where reports set their parts aside
/// while the evidence is read; removed when the reports are written. Keeping it out of the run directory keeps
/// a run directory to its evidence and reports, even after a crash.
final class ScratchDirectory {
    let url: URL

    /// Creates `$TMPDIR/matrix-reports-<pid>-<random>`.
    ///
    /// - Throws: ``EvidenceWriteError`` with code `cannotCreateDirectory`.
    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("matrix-reports-\(ProcessInfo.processInfo.processIdentifier)-\(UInt32.random(in: 0...UInt32.max))")
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

    /// Deletes the directory and what is in it.
    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
