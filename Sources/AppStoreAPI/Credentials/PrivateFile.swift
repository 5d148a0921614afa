import Foundation

/// Reads small private files (credentials, `.p8` keys, accounts) after ``RepositoryGuard`` allows them.
///
/// Only regular files up to ``maximumSize`` are read; a FIFO, a directory or a huge file is refused with a
/// sentence instead of a hang. Nothing of the contents ever reaches a message.
public enum PrivateFile {
    /// No credentials, key or accounts file needs more than this.
    public static let maximumSize = 1024 * 1024

    /// Checks `path` with `guard` and reads it.
    ///
    /// - Parameters:
    ///   - path: The path as the user gave it (relative to the guard's current directory, `~` allowed).
    ///   - what: What the file is, for messages ("credentials file").
    ///   - guard: The repository check to apply first.
    /// - Returns: The resolved path and the bytes.
    /// - Throws: ``CredentialsError`` `.insideRepository` from the guard, `.unreadable` when the file cannot be read.
    public static func read(_ path: String, what: String, guard repository: RepositoryGuard) throws(CredentialsError) -> (path: String, bytes: [UInt8]) {
        let resolved = try repository.check(path, what: what)
        do {
            return (resolved, try readRegularFile(resolved))
        } catch {
            throw CredentialsError(.unreadable, "cannot read the \(what) \(path): \(error.reason)")
        }
    }

    private struct Unreadable: Error {
        var reason: String
    }

    private static func readRegularFile(_ path: String) throws(Unreadable) -> [UInt8] {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw Unreadable(reason: errno == ENOENT ? "no such file" : String(cString: strerror(errno)))
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw Unreadable(reason: "it is a directory")
        default: throw Unreadable(reason: "it is not a regular file")
        }
        guard Int(info.st_size) <= maximumSize else { throw Unreadable(reason: "it is larger than 1 MB") }
        let descriptor = open(path, O_RDONLY | O_NONBLOCK)
        guard descriptor >= 0 else { throw Unreadable(reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Unreadable(reason: String(cString: strerror(errno)))
            }
            if count == 0 { break }
            bytes.append(contentsOf: buffer[0..<count])
            if bytes.count > maximumSize { throw Unreadable(reason: "it is larger than 1 MB") }
        }
        return bytes
    }
}
