/// Where a report's text goes as it is rendered: memory, or a file through a buffer.
protocol ReportSink: AnyObject {
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
final class MemorySink: ReportSink {
    private(set) var bytes: [UInt8] = []

    func write(bytes: UnsafeRawBufferPointer) {
        self.bytes.append(contentsOf: bytes)
    }
}

/// A sink that hashes what it passes on, so that a report's digest is known without reading it back.
final class DigestingSink: ReportSink {
    private let sink: ReportSink
    private let digest: DigestStream

    init(_ sink: ReportSink, _ digest: DigestStream) {
        self.sink = sink
        self.digest = digest
    }

    func write(bytes: UnsafeRawBufferPointer) throws {
        try sink.write(bytes: bytes)
        digest.update(bytes)
    }
}
