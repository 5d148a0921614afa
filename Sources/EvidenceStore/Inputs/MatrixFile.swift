import Foundation
import FileIO
import MatrixJSON
import MatrixModel

/// A matrix file as read from disk: its bytes, its catalog's bytes, and the matrix with every diagnostic.
///
/// The catalog a matrix names is read relative to the matrix file; both reads are bounded (``InputFile``).
package struct MatrixFile: Sendable {
    /// The path as given.
    package var path: String
    /// The matrix, when it loads without an error.
    package var matrix: Matrix?
    /// Every problem found, sorted by location.
    package var diagnostics: [Diagnostic]
    /// The matrix file's bytes.
    package var bytes: [UInt8]
    /// The `.storekit` file's bytes; `nil` for an inline catalog or an unreadable file.
    package var catalogBytes: [UInt8]?

    /// Reads and loads the matrix at `path`; `checksCoverage` adds the warnings about products and tiers no case
    /// tests (``MatrixLoader/load(_:file:checksCoverage:readCatalog:)``). With `catalogBesideMatrix`, a catalog not
    /// found at its path is looked for by its file name beside the matrix: Xcode copies a test target's resources
    /// into one folder, so `../App/Products.storekit` is then `Products.storekit` beside the matrix.
    ///
    /// - Throws: ``InputFile/Unreadable`` when the matrix file itself cannot be read (an unreadable catalog is a
    ///   diagnostic).
    package static func read(_ path: String, checksCoverage: Bool = false,
                             catalogBesideMatrix: Bool = false) throws(InputFile.Unreadable) -> MatrixFile {
        let bytes = try InputFile.read(path)
        let directory = (path as NSString).deletingLastPathComponent
        var catalogBytes: [UInt8]?
        let result = MatrixLoader.load(bytes, file: path, checksCoverage: checksCoverage) { catalogPath in
            let resolved = catalogPath.hasPrefix("/") ? catalogPath : (directory.isEmpty ? catalogPath : directory + "/" + catalogPath)
            do throws(InputFile.Unreadable) {
                let contents = try InputFile.read(resolved)
                catalogBytes = contents
                return .contents(contents, displayPath: resolved)
            } catch {
                let beside = (directory.isEmpty ? "" : directory + "/") + (catalogPath as NSString).lastPathComponent
                if catalogBesideMatrix, beside != resolved, let contents = try? InputFile.read(beside) {
                    catalogBytes = contents
                    return .contents(contents, displayPath: beside)
                }
                return .unreadable(reason: "\(resolved): \(error.reason)")
            }
        }
        return MatrixFile(path: path, matrix: result.matrix, diagnostics: result.diagnostics, bytes: bytes, catalogBytes: catalogBytes)
    }
}
