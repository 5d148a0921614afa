import Foundation
import FileIO
import MatrixJSON
import MatrixModel
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An `evidence.jsonl` open for reading records at known places, as ``EvidenceReader/forEachLine(in:_:)``
/// found them: a large run can be indexed in one pass and its records read again one at a time, in any order,
/// without holding them all.
public final class EvidenceFile {
    /// The file read.
    public let url: URL
    private let fd: Int32

    /// Opens `url` for reading.
    ///
    /// - Throws: ``EvidenceReadError`` with code `unreadable` when the file cannot be opened, `notRegularFile`
    ///   when it is not a regular file or is a symbolic link.
    public init(url: URL) throws {
        let fd: Int32
        do {
            fd = try InputFile.openRegular(url.path, followingLinks: false)
        } catch {
            throw EvidenceReadError.opening(url.path, error)
        }
        self.url = url
        self.fd = fd
    }

    deinit {
        DurableFile.closeDescriptor(fd)
    }

    /// The record whose line is `range` of the file.
    ///
    /// - Throws: ``EvidenceReadError``: `unreadable` when the bytes cannot be read (the file shrank), `corrupt`
    ///   when they are no longer a record (the file changed since it was indexed).
    public func record(at range: Range<Int64>) throws -> EvidenceRecord {
        var bytes = [UInt8](repeating: 0, count: Int(range.count))
        var done = 0
        while done < bytes.count {
            let got = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress.map { $0 + done }, $0.count - done, off_t(range.lowerBound) + off_t(done)) }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else {
                throw EvidenceReadError(.unreadable, path: url.path,
                                        message: "cannot read \(url.path) at byte \(range.lowerBound + Int64(done)): the file changed while it was read")
            }
            done += got
        }
        do {
            return try StrictJSON.decode(EvidenceRecord.self, from: Data(bytes))
        } catch {
            throw EvidenceReadError(.corrupt, path: url.path,
                                    message: "\(url.path): bytes \(range.lowerBound)–\(range.upperBound) are no longer an evidence record "
                                        + "(\(error)); the file changed while it was read")
        }
    }
}
