import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads input files with the checks a user needs: a clear reason for a missing file, a directory, a FIFO,
/// a device, a symbolic link where none may be, something unreadable or too large, instead of a hang or a crash.
///
/// Only regular files are opened: a FIFO would block a read forever and a device such as `/dev/zero` never
/// ends. The type is checked before the file is opened (opening a device can have effects of its own) and
/// again on the open descriptor, which must be the same file, so nothing swapped in between is read.
package enum InputFile {
    /// Inputs larger than this are refused: no matrix, catalog, answers file or manifest needs more.
    package static let maximumSize = 64 * 1024 * 1024

    /// Why a file cannot be read, as a sentence fragment ("no such file", "is a directory"…).
    package struct Unreadable: Error, Sendable, Hashable {
        package var reason: String
        /// The path names something other than a regular file (or a symbolic link where none may be): not a
        /// failure to read, but input of the wrong kind.
        package var isNotRegularFile: Bool

        package init(reason: String, isNotRegularFile: Bool = false) {
            self.reason = reason
            self.isNotRegularFile = isNotRegularFile
        }

        /// A sentence about `subject`: "`subject` is a FIFO, not a regular file", "`subject`: Permission denied".
        package func about(_ subject: String) -> String {
            reason.hasPrefix("is ") || reason.hasPrefix("was ") ? "\(subject) \(reason)" : "\(subject): \(reason)"
        }
    }

    /// Reads a regular file whole.
    ///
    /// - Parameters:
    ///   - followingLinks: whether a symbolic link is followed (a file named on the command line) or refused
    ///     (a file inside a run directory or an unpacked archive, which must not lead out of it).
    ///   - maximumSize: the most bytes accepted; a larger file is refused without being read.
    package static func read(_ path: String, followingLinks: Bool = true, maximumSize: Int = maximumSize) throws(Unreadable) -> [UInt8] {
        let fd = try openRegular(path, followingLinks: followingLinks)
        defer { close(fd) }
        return try readAll(fd, maximumSize: maximumSize)
    }

    /// Reads standard input to its end, refusing more than `maximumSize` bytes: an endless stream is an error,
    /// never memory that grows until the system stops the process.
    package static func readStandardInput(maximumSize: Int = maximumSize) throws(Unreadable) -> [UInt8] {
        try readAll(0, maximumSize: maximumSize)
    }

    /// Opens a regular file for reading, or with `flags` (`O_WRONLY | O_APPEND` to append to evidence).
    ///
    /// - Returns: the descriptor, close-on-exec and blocking; the caller closes it.
    /// - Throws: ``Unreadable`` naming what the path is when it is not a regular file (a directory, a FIFO, a
    ///   device, a socket, or a symbolic link when `followingLinks` is false), or the system's reason.
    package static func openRegular(_ path: String, flags: Int32 = O_RDONLY, followingLinks: Bool) throws(Unreadable) -> Int32 {
        var before = stat()
        let found = followingLinks ? stat(path, &before) : lstat(path, &before)
        guard found == 0 else {
            throw Unreadable(reason: errno == ENOENT ? "no such file" : String(cString: strerror(errno)))
        }
        try checkRegular(before.st_mode)
        // O_NONBLOCK: should a FIFO take the file's place after the check, opening it does not wait for a writer.
        let fd = open(path, flags | O_NONBLOCK | O_CLOEXEC | (followingLinks ? 0 : O_NOFOLLOW))
        guard fd >= 0 else {
            let number = errno
            if !followingLinks, number == ELOOP { throw Unreadable(reason: "is a symbolic link, not a regular file", isNotRegularFile: true) }
            throw Unreadable(reason: String(cString: strerror(number)))
        }
        var after = stat()
        guard fstat(fd, &after) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw Unreadable(reason: reason)
        }
        do throws(Unreadable) {
            try checkRegular(after.st_mode)
            guard after.st_dev == before.st_dev, after.st_ino == before.st_ino else {
                throw Unreadable(reason: "was replaced while it was opened")
            }
        } catch {
            close(fd)
            throw error
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return fd
    }

    /// Refuses every file type but a regular file, saying which it is.
    static func checkRegular(_ mode: mode_t) throws(Unreadable) {
        switch mode & S_IFMT {
        case S_IFREG: return
        case S_IFDIR: throw Unreadable(reason: "is a directory", isNotRegularFile: true)
        case S_IFIFO: throw Unreadable(reason: "is a FIFO, not a regular file", isNotRegularFile: true)
        case S_IFLNK: throw Unreadable(reason: "is a symbolic link, not a regular file", isNotRegularFile: true)
        case S_IFCHR, S_IFBLK: throw Unreadable(reason: "is a device, not a regular file", isNotRegularFile: true)
        case S_IFSOCK: throw Unreadable(reason: "is a socket, not a regular file", isNotRegularFile: true)
        default: throw Unreadable(reason: "is not a regular file", isNotRegularFile: true)
        }
    }

    /// Reads `fd` to its end, at most `maximumSize` bytes.
    static func readAll(_ fd: Int32, maximumSize: Int) throws(Unreadable) -> [UInt8] {
        var bytes: [UInt8] = []
        var info = stat()
        if fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG {
            guard Int(info.st_size) <= maximumSize else { throw tooLarge(maximumSize) }
            bytes.reserveCapacity(Int(info.st_size))
        }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let want = min(buffer.count, maximumSize + 1 - bytes.count)
            let count = buffer.withUnsafeMutableBytes { Foundation.read(fd, $0.baseAddress, want) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Unreadable(reason: String(cString: strerror(errno)))
            }
            if count == 0 { break }
            bytes.append(contentsOf: buffer[0..<count])
            if bytes.count > maximumSize { throw tooLarge(maximumSize) }
        }
        return bytes
    }

    static func tooLarge(_ maximumSize: Int) -> Unreadable {
        maximumSize >= 1024 * 1024 && maximumSize % (1024 * 1024) == 0
            ? Unreadable(reason: "is larger than \(maximumSize / 1024 / 1024) MB")
            : Unreadable(reason: "is larger than \(maximumSize) bytes")
    }
}
