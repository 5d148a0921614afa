import Foundation
import FileIO
import MatrixJSON
import MatrixModel

/// Reads `evidence.jsonl` back, one line at a time, without loading the file into memory.
///
/// A run that crashed or was killed while writing may leave a torn last line: one without its trailing newline,
/// or one cut short, which is not JSON. That line is dropped and reported; everything before it is kept. A damaged
/// line anywhere else means the file was altered, and reading fails; so does any line that is whole JSON but not a
/// record, or that names a key twice (``StrictJSON``): no crash writes one.
///
/// The file is read as an untrusted input: it must be a regular file and is never opened through a symbolic
/// link (a FIFO would hang the reader, `/dev/zero` would never end, a link could lead out of the run
/// directory), and no line may be longer than ``maximumLineLength``.
public enum EvidenceReader {
    /// Bytes read per chunk.
    static let chunkSize = 1 << 16
    /// The longest line read: twice the longest line a driver may send (a record holds one observation and
    /// what the runner adds to it). A longer line is refused before it is held whole, so a file of one endless
    /// line (a sparse file, say) cannot exhaust memory.
    public static let maximumLineLength = 32 * 1024 * 1024

    /// Every record of the file, in file order.
    ///
    /// - Parameter url: an `evidence.jsonl` file.
    /// - Returns: the records, and whether a torn last line was dropped.
    /// - Throws: ``EvidenceReadError`` with code `unreadable` when the file cannot be opened or read, `corrupt`
    ///   when a line before the last is not a valid record.
    public static func read(_ url: URL) throws -> (records: [EvidenceRecord], droppedTornLine: Bool) {
        var records: [EvidenceRecord] = []
        let scan = try scan(url) { records.append($0) }
        return (records, scan.droppedTornLine)
    }

    /// Calls `body` with each record of the file, in file order, as it is read.
    ///
    /// - Returns: whether a torn last line was dropped.
    /// - Throws: ``EvidenceReadError`` as ``read(_:)`` does, or whatever `body` throws.
    @discardableResult
    public static func forEachRecord(in url: URL, _ body: (EvidenceRecord) throws -> Void) throws -> Bool {
        try scan(url, body).droppedTornLine
    }

    /// What a scan found besides the records.
    struct Scan {
        var droppedTornLine: Bool
        /// Bytes from the start of the file up to the end of the last good line: the length to truncate to
        /// before appending more.
        var validLength: Int64
    }

    /// Calls `body` with each record of the file and the bytes of its line (the newline left out), in file order,
    /// so that a record can be read again later with ``EvidenceFile/record(at:)``.
    ///
    /// - Returns: whether a torn last line was dropped.
    /// - Throws: ``EvidenceReadError`` as ``read(_:)`` does, or whatever `body` throws.
    @discardableResult
    public static func forEachLine(in url: URL, _ body: (EvidenceRecord, Range<Int64>) throws -> Void) throws -> Bool {
        try scanLines(url, body).droppedTornLine
    }

    static func scan(_ url: URL, _ body: (EvidenceRecord) throws -> Void) throws -> Scan {
        try scanLines(url) { record, _ in try body(record) }
    }

    static func scanLines(_ url: URL, _ body: (EvidenceRecord, Range<Int64>) throws -> Void) throws -> Scan {
        let handle: FileHandle
        do {
            handle = FileHandle(fileDescriptor: try InputFile.openRegular(url.path, followingLinks: false), closeOnDealloc: true)
        } catch {
            throw EvidenceReadError.opening(url.path, error)
        }
        defer { try? handle.close() }
        var buffer: [UInt8] = []
        var bufferStart: Int64 = 0   // file offset of buffer[0]
        var lineNumber = 0
        var validLength: Int64 = 0
        var badLine: (number: Int, offset: Int64, error: StrictJSONError)?
        // The buffer's first `searched` bytes hold no newline: a long line is scanned once, not once per chunk.
        var searched = 0

        func corrupt(_ bad: (number: Int, offset: Int64, error: StrictJSONError)) -> EvidenceReadError {
            EvidenceReadError(.corrupt, path: url.path, line: bad.number,
                              message: "\(bad.error.located(in: url.path, line: bad.number)): not a valid evidence record, and not the last line; "
                                  + "the file was altered after it was written, so its evidence cannot be trusted")
        }

        while true {
            let chunk: Data?
            do {
                chunk = try handle.read(upToCount: chunkSize)
            } catch {
                throw EvidenceReadError(.unreadable, path: url.path,
                                        message: "cannot read \(url.path): \(error.localizedDescription)")
            }
            guard let chunk, !chunk.isEmpty else { break }
            buffer.append(contentsOf: chunk)
            var lineStart = 0
            while let newline = buffer[max(lineStart, searched)...].firstIndex(of: 0x0A) {
                lineNumber += 1
                let line = buffer[lineStart..<newline]
                let offset = bufferStart + Int64(lineStart)
                lineStart = newline + 1
                if line.allSatisfy(isWhitespace) {
                    if badLine == nil { validLength = bufferStart + Int64(lineStart) }
                    continue
                }
                if let bad = badLine { throw corrupt(bad) }
                let record: EvidenceRecord
                do {
                    record = try StrictJSON.decode(EvidenceRecord.self, from: Data(line))
                } catch {
                    guard case .invalidJSON = error.kind else {
                        // Whole JSON, so not a line a crash cut short: written so, or altered since.
                        throw EvidenceReadError(.corrupt, path: url.path, line: lineNumber,
                                                message: "\(error.located(in: url.path, line: lineNumber)): not a valid evidence record; "
                                                    + "the file was altered after it was written, so its evidence cannot be trusted")
                    }
                    badLine = (lineNumber, offset, error)
                    continue
                }
                try body(record, offset..<(bufferStart + Int64(newline)))
                validLength = bufferStart + Int64(lineStart)
            }
            buffer.removeFirst(lineStart)
            bufferStart += Int64(lineStart)
            searched = buffer.count
            if buffer.count > maximumLineLength {
                throw EvidenceReadError(.lineTooLong, path: url.path, line: lineNumber + 1,
                                        message: "\(url.path):\(lineNumber + 1): the line is longer than \(maximumLineLength / 1024 / 1024) MB, "
                                            + "more than any evidence record matrix writes; the file was not written by matrix")
            }
        }
        let tail = buffer.allSatisfy(isWhitespace) ? 0 : buffer.count
        if tail > 0, let bad = badLine { throw corrupt(bad) }
        return Scan(droppedTornLine: badLine != nil || tail > 0, validLength: validLength)
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A
    }
}
