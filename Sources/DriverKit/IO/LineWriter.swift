import Dispatch
import Foundation
import Threading
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes whole lines to a file descriptor, in order, on a private serial queue, so that a reader that stops
/// reading blocks that queue and never a thread of the cooperative pool.
///
/// Creating a writer ignores `SIGPIPE` for the process: a peer that exits makes writes fail with `EPIPE`
/// instead of killing the process.
public final class LineWriter: Sendable {
    private let handle: FileHandle
    private let queue = DispatchQueue(label: "storekit-matrix.line-writer")
    /// Whether the descriptor is closed, and the write failure that ended the output; touched on `queue`.
    private let state = Locked(WriterState())

    /// A writer to `handle` (a pipe or a file); ``close()`` closes it.
    public init(_ handle: FileHandle) {
        self.handle = handle
        _ = Self.ignoreSIGPIPE
    }

    private static let ignoreSIGPIPE: Void = {
        signal(SIGPIPE, SIG_IGN)
    }()

    /// Writes `bytes` and waits until they are written.
    ///
    /// - Throws: ``LineWriterError`` when the descriptor is closed or a write fails (the peer exited: `EPIPE`).
    public func write(_ bytes: [UInt8]) async throws(LineWriterError) {
        let outcome: LineWriterError? = await withCheckedContinuation { continuation in
            queue.async {
                continuation.resume(returning: self.writeNow(bytes))
            }
        }
        if let outcome { throw outcome }
    }

    /// Queues `bytes` for writing and returns at once; a failure shows up as the peer's end of file.
    public func send(_ bytes: [UInt8]) {
        queue.async { _ = self.writeNow(bytes) }
    }

    /// Closes the descriptor after every queued write (the peer reads end of file).
    public func close() {
        queue.async {
            guard self.state.withLock({ state in
                defer { state.closed = true }
                return !state.closed
            }) else { return }
            try? self.handle.close()
        }
    }

    /// Runs on `queue`.
    private func writeNow(_ bytes: [UInt8]) -> LineWriterError? {
        let (closed, earlier) = state.withLock { ($0.closed, $0.failure) }
        if closed { return LineWriterError(message: "the output is closed") }
        if let earlier { return earlier }
        let fd = handle.fileDescriptor
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in
                systemWrite(fd, raw.baseAddress.map { $0 + offset }, raw.count - offset)
            }
            if written >= 0 {
                offset += written
                continue
            }
            let number = errno
            if number == EINTR { continue }
            if number == EAGAIN {
                var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&poller, 1, 100)
                continue
            }
            let failure = LineWriterError(message: String(cString: strerror(number)))
            state.withLock { $0.failure = failure }
            return failure
        }
        return nil
    }

    private struct WriterState {
        var closed = false
        var failure: LineWriterError?
    }
}

/// A line could not be written.
public struct LineWriterError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Why, e.g. `Broken pipe`.
    public var message: String
    /// The message.
    public var description: String { message }
}

#if canImport(Glibc)
private let systemWrite = Glibc.write
#elseif canImport(Darwin)
private let systemWrite = Darwin.write
#endif
