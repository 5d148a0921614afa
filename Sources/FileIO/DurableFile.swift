import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The few POSIX calls that make evidence durable: exclusive directory creation, whole-buffer writes,
/// `fsync` of files and directories, and atomic replacement (temporary file + `rename`).
package enum DurableFile {
    /// Creates `path` as a new directory; fails if anything already exists there.
    ///
    /// - Returns: `false` if the path already exists, `true` once created.
    /// - Throws: ``EvidenceWriteError`` with code `cannotCreateDirectory` for any other failure.
    package static func makeNewDirectory(_ path: String) throws -> Bool {
        if mkdir(path, 0o755) == 0 { return true }
        let number = errno
        if number == EEXIST { return false }
        throw EvidenceWriteError.system(.cannotCreateDirectory, path: path, doing: "create directory", errno: number)
    }

    /// Flushes a directory's entries (new or renamed files) to disk. Best effort: some file systems refuse it.
    package static func syncDirectory(_ path: String) {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        _ = close(fd)
    }

    /// Writes `bytes` to `fd` with one `write()` call, retried only when interrupted before writing anything.
    ///
    /// - Returns: the number of bytes written, which is less than `bytes.count` only when the kernel accepted
    ///   part of the buffer (a full disk or quota).
    /// - Throws: ``EvidenceWriteError`` with code `cannotWrite` when the call fails.
    package static func writeOnce(_ fd: Int32, _ bytes: ArraySlice<UInt8>, path: String) throws -> Int {
        try bytes.withUnsafeBytes { try writeOnce(fd, $0, path: path) }
    }

    /// Writes `bytes` to `fd` with one `write()` call, as the `ArraySlice` form does.
    static func writeOnce(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws -> Int {
        while true {
            let written = write(fd, bytes.baseAddress, bytes.count)
            if written >= 0 { return written }
            let number = errno
            if number == EINTR { continue }
            throw EvidenceWriteError.system(.cannotWrite, path: path, doing: "write to", errno: number)
        }
    }

    /// Closes a descriptor (`close(2)`, named apart from the writers' own `close()`).
    package static func closeDescriptor(_ fd: Int32) {
        _ = close(fd)
    }

    /// Flushes a file's data to disk.
    ///
    /// - Throws: ``EvidenceWriteError`` with code `cannotSync`.
    package static func sync(_ fd: Int32, path: String) throws {
        while fsync(fd) != 0 {
            let number = errno
            if number == EINTR { continue }
            throw EvidenceWriteError.system(.cannotSync, path: path, doing: "flush to disk", errno: number)
        }
    }

    /// Replaces the file at `url` with `data` atomically: readers see the old file or the new one, never part.
    ///
    /// Writes `.<name>.tmp` beside it, flushes it, renames it over `url` and flushes the directory.
    /// - Throws: ``EvidenceWriteError`` with code `cannotWrite` or `cannotSync`; the temporary file is removed.
    package static func replace(_ url: URL, with data: Data) throws {
        try replace(url) { writer in
            try data.withUnsafeBytes { try writer.write(bytes: $0) }
        }
    }

    /// Replaces the file at `url` atomically with what `body` writes, through a buffer.
    ///
    /// - Throws: ``EvidenceWriteError`` with code `cannotWrite` or `cannotSync`, or what `body` throws; the
    ///   temporary file is then removed and `url` is left as it was.
    package static func replace(_ url: URL, writing body: (BufferedFileWriter) throws -> Void) throws {
        let directory = url.deletingLastPathComponent().path
        let temporary = url.deletingLastPathComponent().appendingPathComponent("." + url.lastPathComponent + ".tmp").path
        // A file already at the temporary name is what a killed process left, or a link planted to make this
        // write land elsewhere: it is removed, and the new one created exclusively, never through a link.
        _ = unlink(temporary)
        let writer = try BufferedFileWriter(creating: temporary, exclusive: true)
        do {
            try body(writer)
            try writer.sync()
        } catch {
            writer.close()
            _ = unlink(temporary)
            throw error
        }
        writer.close()
        guard rename(temporary, url.path) == 0 else {
            let number = errno
            _ = unlink(temporary)
            throw EvidenceWriteError.system(.cannotWrite, path: url.path, doing: "replace", errno: number)
        }
        syncDirectory(directory)
    }
}
