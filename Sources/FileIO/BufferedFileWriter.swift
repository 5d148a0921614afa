import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a file through a buffer: many small writes become few `write()` calls of ``capacity`` bytes.
///
/// Used for reports, which are written whole and then renamed into place; evidence goes through
/// ``EvidenceWriter``, which writes each record with one call.
package final class BufferedFileWriter {
    /// Bytes buffered before a `write()`.
    package static let capacity = 1 << 18

    package let path: String
    private var fd: Int32
    /// Whether ``close()`` and `deinit` close the descriptor (not for standard output).
    private let ownsDescriptor: Bool
    private var buffer: [UInt8] = []
    /// Bytes handed to the writer so far, buffered or not.
    private(set) var length: Int64 = 0

    /// Creates (or truncates) the file at `path`.
    ///
    /// - Parameter exclusive: fail when anything, a symbolic link included, is at `path` already.
    /// - Throws: ``EvidenceWriteError`` with code `cannotWrite` when it cannot be created.
    package init(creating path: String, exclusive: Bool = false) throws {
        let fd = open(path, O_RDWR | O_CREAT | (exclusive ? O_EXCL | O_NOFOLLOW : O_TRUNC) | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw EvidenceWriteError.system(.cannotWrite, path: path, doing: "create", errno: errno) }
        self.path = path
        self.fd = fd
        ownsDescriptor = true
        buffer.reserveCapacity(Self.capacity)
    }

    /// Writes to a descriptor that stays open, such as standard output (`1`); `path` names it in errors.
    package init(descriptor: Int32, path: String) {
        self.path = path
        fd = descriptor
        ownsDescriptor = false
    }

    deinit {
        if fd >= 0, ownsDescriptor { DurableFile.closeDescriptor(fd) }
    }

    package func write(bytes: UnsafeRawBufferPointer) throws {
        length += Int64(bytes.count)
        if buffer.count + bytes.count > Self.capacity {
            try flush()
            if bytes.count >= Self.capacity {
                try writeAll(bytes)
                return
            }
        }
        buffer.append(contentsOf: bytes)
    }

    /// Writes the buffered bytes to the file.
    ///
    /// - Throws: ``EvidenceWriteError`` with code `cannotWrite`.
    package func flush() throws {
        guard !buffer.isEmpty else { return }
        try buffer.withUnsafeBytes { try writeAll($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes the buffered bytes and flushes the file to disk.
    ///
    /// - Throws: ``EvidenceWriteError`` with code `cannotWrite` or `cannotSync`.
    package func sync() throws {
        try flush()
        try DurableFile.sync(fd, path: path)
    }

    /// Closes the file without flushing the buffer.
    package func close() {
        if fd >= 0, ownsDescriptor { DurableFile.closeDescriptor(fd) }
        fd = -1
    }

    /// Reads `count` bytes at `offset` of what was flushed.
    ///
    /// - Throws: ``EvidenceWriteError`` with code `cannotWrite` when the file cannot be read back.
    package func read(at offset: Int64, count: Int, into body: (UnsafeRawBufferPointer) throws -> Void) throws {
        var chunk = [UInt8](repeating: 0, count: min(count, Self.capacity))
        var done = 0
        while done < count {
            let want = min(chunk.count, count - done)
            let got = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, want, off_t(offset + Int64(done))) }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else {
                throw EvidenceWriteError.system(.cannotWrite, path: path, doing: "read back", errno: got < 0 ? errno : EIO)
            }
            try chunk.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0.prefix(got))) }
            done += got
        }
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) throws {
        guard fd >= 0 else {
            throw EvidenceWriteError(.writerClosed, path: path, message: "\(path) is closed; nothing more can be written to it")
        }
        var offset = 0
        while offset < bytes.count {
            let written = try DurableFile.writeOnce(fd, UnsafeRawBufferPointer(rebasing: bytes[offset...]), path: path)
            if written == 0 {
                throw EvidenceWriteError(.cannotWrite, path: path,
                                         message: "cannot write to \(path): the disk accepted no more bytes; free some disk space, then try again")
            }
            offset += written
        }
    }
}
