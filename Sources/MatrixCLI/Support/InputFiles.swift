import EvidenceStore
import EvidenceVerification
import FileIO
import Foundation
import MatrixJSON
import MatrixModel

/// Reads input files with the checks a user needs: a clear message for a missing file, a directory, a FIFO,
/// something unreadable or too large, instead of a hang or a crash.
package enum InputFiles {
    /// Reads a file named on the command line; failures exit 66.
    static func readArgument(_ path: String, what: String) throws(CommandFailure) -> [UInt8] {
        do {
            return try InputFile.read(path)
        } catch {
            throw CommandFailure("cannot read \(what) \(path): \(error.reason)", code: .noInput)
        }
    }

    /// Reads standard input, at most ``InputFile/maximumSize`` bytes as for a file; failures exit 66.
    static func readStandardInput(what: String) throws(CommandFailure) -> [UInt8] {
        do {
            return try InputFile.readStandardInput()
        } catch {
            throw CommandFailure("cannot read \(what): \(error.about("standard input"))", code: .noInput)
        }
    }

    /// Loads and validates a matrix: reads it (66 on failure), reads its catalog relative to it, and returns
    /// the matrix with every diagnostic.
    static func loadMatrix(_ path: String, checksCoverage: Bool = false) throws(CommandFailure) -> (Matrix?, [Diagnostic], bytes: [UInt8]) {
        let loaded = try loadMatrixSources(path, checksCoverage: checksCoverage)
        return (loaded.matrix, loaded.diagnostics, loaded.bytes)
    }

    /// Like ``loadMatrix(_:)``, keeping the bytes of the files it was loaded from (external drivers receive them).
    static func loadMatrixSources(_ path: String, checksCoverage: Bool = false) throws(CommandFailure) -> MatrixFile {
        do {
            return try MatrixFile.read(path, checksCoverage: checksCoverage)
        } catch {
            throw CommandFailure("cannot read matrix \(path): \(error.reason)", code: .noInput)
        }
    }

    /// The matrix at `path` as verification reads it; `nil` when the file cannot be read.
    static func matrixSources(_ path: String) -> MatrixSources? {
        guard let loaded = try? loadMatrixSources(path) else { return nil }
        return MatrixSources(matrix: loaded.matrix, bytes: loaded.bytes, catalogBytes: loaded.catalogBytes)
    }
}
