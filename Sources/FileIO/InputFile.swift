import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads input files with the checks a user needs: a clear reason for a missing file, a directory, a FIFO,
/// something unreadable or too large, instead of a hang or a crash.
package enum InputFile {
    /// Inputs larger than this are refused: no matrix, catalog or answers file needs more.
    package static let maximumSize = 64 * 1024 * 1024

    /// Why a file cannot be read, as a sentence fragment ("no such file", "is a directory"…).
    package struct Unreadable: Error, Sendable {
        package var reason: String
    }

    /// Reads a regular file.
    package static func read(_ path: String) throws(Unreadable) -> [UInt8] {
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
}
