import FileIO

/// Where a report's text goes as it is rendered: memory, or a file through a buffer.
package protocol ReportSink: AnyObject {
    /// Appends UTF-8 bytes.
    ///
    /// - Throws: ``EvidenceWriteError`` when a file sink cannot write.
    func write(bytes: UnsafeRawBufferPointer) throws
}

extension ReportSink {
    /// Appends `text` as UTF-8.
    func write(_ text: String) throws {
        var text = text
        try text.withUTF8 { try write(bytes: UnsafeRawBufferPointer($0)) }
    }
}

/// A sink that keeps the bytes in memory.
package final class MemorySink: ReportSink {
    package init() {}

    package private(set) var bytes: [UInt8] = []

    package func write(bytes: UnsafeRawBufferPointer) {
        self.bytes.append(contentsOf: bytes)
    }
}

/// A report written to a file through a buffer.
extension BufferedFileWriter: ReportSink {}
