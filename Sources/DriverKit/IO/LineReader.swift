import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a line reader saw on its file descriptor.
public enum LineEvent: Sendable, Hashable {
    case line([UInt8])
    /// A line over the limit: its first bytes (see ``LineSplitter``).
    case overlong(prefix: [UInt8])
    /// End of file, or a read error; nothing follows.
    case end
}

/// Reads lines from a file descriptor without tying up a thread of the cooperative pool: a dispatch read
/// source wakes when data is readable, one `read()` takes what is there, and complete lines go to an
/// `AsyncStream`.
///
/// Cancelling the stream's consumer (or dropping the stream) cancels the source; `onClose` runs once the
/// source is cancelled, which is when the descriptor may be closed.
public enum LineReader {
    /// The lines of `fileDescriptor`, ending with ``LineEvent/end``.
    ///
    /// - Parameters:
    ///   - fileDescriptor: a pipe, socket or file open for reading; it is not made non-blocking.
    ///   - maximumLength: the longest line accepted, bytes.
    ///   - onClose: called once, on a dispatch queue, after reading has stopped.
    public static func lines(from fileDescriptor: Int32, maximumLength: Int = DriverProtocol.maximumLineBytes,
                             onClose: @escaping @Sendable () -> Void = {}) -> AsyncStream<LineEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: LineEvent.self, bufferingPolicy: .unbounded)
        let queue = DispatchQueue(label: "storekit-matrix.line-reader")
        let state = ReaderState(maximumLength: maximumLength)
        let source = DispatchSource.makeReadSource(fileDescriptor: fileDescriptor, queue: queue)
        source.setEventHandler {
            guard !state.ended else { return }
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            let count = buffer.withUnsafeMutableBytes { read(fileDescriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                for piece in state.splitter.append(buffer[0..<count]) { continuation.yield(LineEvent(piece)) }
                return
            }
            if count < 0, errno == EINTR || errno == EAGAIN { return }
            for piece in state.splitter.finish() { continuation.yield(LineEvent(piece)) }
            state.ended = true
            continuation.yield(.end)
            continuation.finish()
            source.cancel()
        }
        source.setCancelHandler {
            if !state.ended {
                state.ended = true
                continuation.yield(.end)
                continuation.finish()
            }
            onClose()
        }
        let cancel = CancelBox(source)
        continuation.onTermination = { _ in cancel.cancel() }
        source.resume()
        return stream
    }

    /// Lets the stream's termination handler cancel the source.
    // @unchecked Sendable: `DispatchSource.cancel()` may be called from any thread.
    private final class CancelBox: @unchecked Sendable {
        let source: any DispatchSourceRead
        init(_ source: any DispatchSourceRead) { self.source = source }
        func cancel() { source.cancel() }
    }

    /// The splitter and the end flag of one reader.
    // @unchecked Sendable: only touched by the source's handlers, which run one at a time on its serial queue.
    private final class ReaderState: @unchecked Sendable {
        var splitter: LineSplitter
        var ended = false

        init(maximumLength: Int) {
            splitter = LineSplitter(maximumLength: maximumLength)
        }
    }
}

extension LineEvent {
    init(_ piece: LineSplitter.Piece) {
        switch piece {
        case .line(let bytes): self = .line(bytes)
        case .overlong(let prefix): self = .overlong(prefix: prefix)
        }
    }
}
