import Foundation
import MatrixCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Appends evidence records to a run's `evidence.jsonl`, one JSON object per line, durably.
///
/// Each line is encoded with sorted keys and unescaped slashes, written with a single `write()` and flushed to
/// disk (`fsync`) before ``append(_:)`` returns, so a crash or Ctrl-C loses nothing already recorded. If a write
/// fails, the partial line is cut off, the error is thrown, and the writer refuses further records: the file
/// always ends with a complete line. The calls block the actor's thread for the duration of the `fsync`.
public actor EvidenceWriter: EvidenceSink {
    /// The `evidence.jsonl` file written.
    public nonisolated let url: URL
    private var fd: Int32
    /// Bytes of complete lines in the file.
    private var length: Int64
    private var failure: EvidenceWriteError?
    private let encoder: JSONEncoder
    /// Records appended through this writer.
    public private(set) var appendedCount = 0

    /// Creates `evidence.jsonl` in a new run directory.
    ///
    /// - Throws: ``EvidenceWriteError`` with code `cannotWrite` when the file exists already or cannot be
    ///   created.
    public init(directory: RunDirectory) throws {
        let url = directory.evidenceURL
        let fd = open(url.path, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            let number = errno
            if number == EEXIST {
                throw EvidenceWriteError(.cannotWrite, path: url.path,
                                         message: "evidence file \(url.path) exists already and is never overwritten; "
                                             + "resume that run or start a new one")
            }
            throw EvidenceWriteError.system(.cannotWrite, path: url.path, doing: "create", errno: number)
        }
        DurableFile.syncDirectory(directory.url.path)
        do {
            try Self.lock(fd, path: url.path)
        } catch {
            posixClose(fd)
            throw error
        }
        self.init(url: url, fd: fd, length: 0)
    }

    /// A writer over an open descriptor whose first `length` bytes are complete lines (tests use `/dev/full`).
    init(url: URL, fd: Int32, length: Int64) {
        self.url = url
        self.fd = fd
        self.length = length
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        self.encoder = encoder
    }

    /// Opens an existing run's `evidence.jsonl` to append more records, after cutting off a torn last line.
    ///
    /// - Returns: the writer, the records already in the file (the last one's `seq` is where the run resumes),
    ///   and whether a torn last line was cut off.
    /// - Throws: ``EvidenceReadError`` when the file cannot be read or is corrupt; ``EvidenceWriteError`` with
    ///   code `cannotWrite` or `cannotSync` when it cannot be opened for appending or truncated.
    public static func resuming(directory: RunDirectory) throws
        -> (writer: EvidenceWriter, records: [EvidenceRecord], droppedTornLine: Bool) {
        let url = directory.evidenceURL
        let fd = open(url.path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard fd >= 0 else { throw EvidenceWriteError.system(.cannotWrite, path: url.path, doing: "open", errno: errno) }
        do {
            try lock(fd, path: url.path)
            var records: [EvidenceRecord] = []
            let scan = try EvidenceReader.scan(url) { records.append($0) }
            if ftruncate(fd, off_t(scan.validLength)) != 0 {
                throw EvidenceWriteError.system(.cannotWrite, path: url.path, doing: "cut the torn last line of", errno: errno)
            }
            try DurableFile.sync(fd, path: url.path)
            return (EvidenceWriter(url: url, fd: fd, length: scan.validLength), records, scan.droppedTornLine)
        } catch {
            posixClose(fd)
            throw error
        }
    }

    /// Takes the run's evidence for this process alone: a second `matrix run --resume` of the same run, or a
    /// resume while the run still goes, is refused instead of recording steps twice.
    static func lock(_ fd: Int32, path: String) throws {
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let number = errno
            if number == EWOULDBLOCK {
                throw EvidenceWriteError(.cannotWrite, path: path,
                                         message: "another matrix process is writing \(path); wait for it to end (or stop it) before resuming")
            }
            throw EvidenceWriteError.system(.cannotWrite, path: path, doing: "lock", errno: number)
        }
    }

    deinit {
        if fd >= 0 { posixClose(fd) }
    }

    /// Appends `record` as one line and flushes it to disk.
    ///
    /// - Throws: ``EvidenceWriteError``: `cannotEncode` when the record cannot be encoded (nothing written),
    ///   `cannotWrite` or `cannotSync` when the disk refuses it (the writer then stops), `writerClosed` after
    ///   ``close()`` or an earlier failure.
    public func append(_ record: EvidenceRecord) throws {
        if let failure {
            throw EvidenceWriteError(.writerClosed, path: url.path,
                                     message: "evidence writing stopped after an earlier error: \(failure.message)")
        }
        guard fd >= 0 else {
            throw EvidenceWriteError(.writerClosed, path: url.path, message: "the evidence file \(url.path) is closed; no more records can be written")
        }
        var line: [UInt8]
        do {
            line = [UInt8](try encoder.encode(record))
        } catch {
            throw EvidenceWriteError(.cannotEncode, path: url.path,
                                     message: "cannot encode the record of case \(record.case) step \(record.step) as JSON: \(error)")
        }
        line.append(0x0A)
        do {
            let written = try DurableFile.writeOnce(fd, line[...], path: url.path)
            if written < line.count {
                _ = ftruncate(fd, off_t(length))
                throw EvidenceWriteError(.cannotWrite, path: url.path,
                                         message: "cannot write to \(url.path): the disk took \(written) of \(line.count) bytes; "
                                             + "free some disk space, then resume the run")
            }
            try DurableFile.sync(fd, path: url.path)
        } catch let error as EvidenceWriteError {
            failure = error
            throw error
        }
        length += Int64(line.count)
        appendedCount += 1
    }

    /// Closes the file. Records appended so far are already on disk; later appends throw `writerClosed`.
    public func close() {
        if fd >= 0 { posixClose(fd) }
        fd = -1
    }
}

/// `close(2)`, named apart from ``EvidenceWriter/close()``.
private func posixClose(_ fd: Int32) {
    _ = close(fd)
}
