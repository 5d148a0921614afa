import Reporters

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
