import Foundation
import MatrixCore
import StoreSimulator

/// Reads input files with the checks a user needs: a clear message for a missing file, a directory, a FIFO,
/// something unreadable or too large, instead of a hang or a crash.
enum InputFiles {
    /// Inputs larger than this are refused: no matrix, catalog or answers file needs more.
    static let maximumSize = 64 * 1024 * 1024

    /// Why a file cannot be read, as a sentence fragment ("no such file", "is a directory"…).
    struct Unreadable: Error {
        var reason: String
    }

    /// Reads a regular file.
    static func read(_ path: String) throws(Unreadable) -> [UInt8] {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw Unreadable(reason: errno == ENOENT ? "no such file" : String(cString: strerror(errno)))
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw Unreadable(reason: "is a directory")
        case S_IFIFO: throw Unreadable(reason: "is a FIFO, not a regular file")
        default: throw Unreadable(reason: "is not a regular file")
        }
        guard Int(info.st_size) <= maximumSize else {
            throw Unreadable(reason: "is larger than \(maximumSize / 1024 / 1024) MB")
        }
        let fd = open(path, O_RDONLY | O_NONBLOCK)
        guard fd >= 0 else { throw Unreadable(reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(info.st_size))
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { Foundation.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Unreadable(reason: String(cString: strerror(errno)))
            }
            if count == 0 { break }
            bytes.append(contentsOf: buffer[0..<count])
            if bytes.count > maximumSize { throw Unreadable(reason: "is larger than \(maximumSize / 1024 / 1024) MB") }
        }
        return bytes
    }

    /// Reads a file named on the command line; failures exit 66.
    static func readArgument(_ path: String, what: String) throws(CommandFailure) -> [UInt8] {
        do {
            return try read(path)
        } catch {
            throw CommandFailure("cannot read \(what) \(path): \(error.reason)", code: .noInput)
        }
    }

    /// Loads and validates a matrix: reads it (66 on failure), reads its catalog relative to it, and returns
    /// the matrix with every diagnostic.
    static func loadMatrix(_ path: String) throws(CommandFailure) -> (Matrix?, [Diagnostic], bytes: [UInt8]) {
        let loaded = try loadMatrixSources(path)
        return (loaded.matrix, loaded.diagnostics, loaded.bytes)
    }

    /// A loaded matrix with the bytes of the files it was loaded from (external drivers receive them).
    struct LoadedMatrix {
        var matrix: Matrix?
        var diagnostics: [Diagnostic]
        var bytes: [UInt8]
        /// The `.storekit` file's bytes; `nil` for an inline catalog or an unreadable file.
        var catalogBytes: [UInt8]?
    }

    /// Like ``loadMatrix(_:)``, keeping the catalog's bytes as well.
    static func loadMatrixSources(_ path: String) throws(CommandFailure) -> LoadedMatrix {
        let bytes = try readArgument(path, what: "matrix")
        let directory = (path as NSString).deletingLastPathComponent
        var catalogBytes: [UInt8]?
        let result = MatrixLoader.load(bytes, file: path) { catalogPath in
            let resolved = catalogPath.hasPrefix("/") ? catalogPath : (directory.isEmpty ? catalogPath : directory + "/" + catalogPath)
            do throws(Unreadable) {
                let contents = try read(resolved)
                catalogBytes = contents
                return .contents(contents, displayPath: resolved)
            } catch {
                return .unreadable(reason: "\(resolved): \(error.reason)")
            }
        } checkClock: { text in
            if case .failure(let problem) = RenewalSchedule.parse(text, storeKitTimeRate: nil) { return problem.message }
            return nil
        }
        return LoadedMatrix(matrix: result.matrix, diagnostics: result.diagnostics, bytes: bytes, catalogBytes: catalogBytes)
    }
}
