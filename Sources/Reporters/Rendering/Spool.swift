import Foundation
import FileIO
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Report text set aside while the evidence is read, for a report whose beginning needs totals that are known
/// only at the end: kept in memory, or in a file when the report may be large.
final class Spool {
    private let file: BufferedFileWriter?
    private var memory: [UInt8] = []
    /// Bytes appended so far.
    private(set) var length: Int64 = 0

    /// A spool in memory (`path` nil) or in a new file at `path`, which ``remove()`` deletes.
    ///
    /// - Throws: ``EvidenceWriteError`` with code `cannotWrite` when the file cannot be created.
    init(path: String?) throws {
        file = try path.map { try BufferedFileWriter(creating: $0) }
    }

    deinit {
        remove()
    }

    /// Appends `text`; returns where it went.
    ///
    /// - Throws: ``EvidenceWriteError`` when the file cannot be written.
    @discardableResult
    func append(_ text: String) throws -> Range<Int64> {
        let start = length
        var text = text
        try text.withUTF8 { bytes in
            if let file {
                try file.write(bytes: UnsafeRawBufferPointer(bytes))
            } else {
                memory.append(contentsOf: bytes)
            }
        }
        length += Int64(text.utf8.count)
        return start..<length
    }

    /// Appends `buffer`'s bytes; returns where they went.
    ///
    /// - Throws: ``EvidenceWriteError`` when the file cannot be written.
    @discardableResult
    func append(_ buffer: MarkupBuffer) throws -> Range<Int64> {
        let start = length
        try buffer.bytes.withUnsafeBytes { bytes in
            if let file {
                try file.write(bytes: bytes)
            } else {
                memory.append(contentsOf: bytes)
            }
        }
        length += Int64(buffer.bytes.count)
        return start..<length
    }

    /// Copies the bytes in `range` to `sink`.
    ///
    /// - Throws: ``EvidenceWriteError`` when the file cannot be read back or the sink cannot be written.
    func copy(_ range: Range<Int64>, to sink: ReportSink) throws {
        guard !range.isEmpty else { return }
        if let file {
            try file.flush()
            try file.read(at: range.lowerBound, count: Int(range.count)) { try sink.write(bytes: $0) }
        } else {
            try memory[Int(range.lowerBound)..<Int(range.upperBound)].withUnsafeBytes { try sink.write(bytes: $0) }
        }
    }

    /// Copies everything appended to `sink`.
    func copyAll(to sink: ReportSink) throws {
        try copy(0..<length, to: sink)
    }

    /// Deletes the spool's file, if it has one.
    func remove() {
        guard let file else { return }
        file.close()
        _ = unlink(file.path)
    }
}
