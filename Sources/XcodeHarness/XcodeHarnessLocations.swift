import Foundation
import HarnessCore

/// Where the `xcode` environment reads the matrix and writes the evidence. In a test hosted by an iOS app (or a
/// macOS app) the working directory is not the project, so a path relative to it finds nothing, and the test
/// host's container is where files can be written.
enum XcodeHarnessLocations {
    /// The matrix file `path` names: an absolute path as it is; otherwise a resource of one of `bundles` at `path`
    /// within it or, because Xcode copies a target's resources flat, at its file name; otherwise `path` under the
    /// working directory (a macOS test run from the package's folder).
    ///
    /// - Throws: ``AppHarnessError`` naming every place looked at, when the file is in none.
    static func matrixFile(_ path: String, bundles: [Bundle], fileManager: FileManager = .default) throws -> String {
        if path.hasPrefix("/") { return path }
        var looked: [String] = []
        for bundle in bundles {
            let root = bundle.resourceURL ?? bundle.bundleURL
            for relative in Set([path, (path as NSString).lastPathComponent]).sorted() {
                let candidate = root.appendingPathComponent(relative).path
                if fileManager.fileExists(atPath: candidate) { return candidate }
                looked.append(candidate)
            }
        }
        let inWorkingDirectory = URL(fileURLWithPath: fileManager.currentDirectoryPath).appendingPathComponent(path).path
        if fileManager.fileExists(atPath: inWorkingDirectory) { return inWorkingDirectory }
        looked.append(inWorkingDirectory)
        throw AppHarnessError("cannot find matrix \(path): looked at \(looked.joined(separator: ", ")). Add the matrix file (and "
                              + "the .storekit file its catalog names, beside it) to the test target's resources, or pass an absolute path")
    }

    /// Where run directories go: an absolute `reportsDirectory` as it is, a relative one under `temporaryDirectory`
    /// (the test host's temporary directory, which it can write), `nil` for none.
    static func reportsDirectory(_ reportsDirectory: String?, temporaryDirectory: URL = FileManager.default.temporaryDirectory) -> String? {
        guard let reportsDirectory else { return nil }
        if reportsDirectory.hasPrefix("/") { return reportsDirectory }
        return temporaryDirectory.appendingPathComponent(reportsDirectory).path
    }
}
