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

/// Reads lines from a file descriptor without tying up a thread of the cooperative pool or of dispatch's
/// global pool: blocking `read()` calls run on a thread of their own (``BlockingThread``) for as long as the
/// descriptor is open, and complete lines go to an `AsyncStream`.
///
/// Reading stops at end of file (the peer closed its end or exited) or on a read error; then `onClose` runs,
/// which is when the descriptor may be closed. A consumer that stops listening does not stop the reading: close
/// the other end (or kill the peer) to end it.
///
/// A blocking read is used rather than a dispatch read source on purpose: sources are keyed by descriptor
/// number, and a number reused while an earlier source on it is being torn down can leave the new source
/// without events.
public enum LineReader {
    /// The lines of `fileDescriptor`, ending with ``LineEvent/end``.
    ///
    /// - Parameters:
    ///   - fileDescriptor: a pipe, socket or file open for reading.
    ///   - maximumLength: the longest line accepted, bytes.
    ///   - onClose: called once, on the reader's thread, after reading has stopped.
    ///   - bufferedBytes: how many bytes of lines may wait for the consumer; beyond that the reader stops
    ///     reading until the consumer catches up, so a peer that writes faster than its lines are handled
    ///     blocks on its own writes instead of filling this process's memory.
    public static func lines(from fileDescriptor: Int32, maximumLength: Int = DriverProtocol.maximumLineBytes,
                             bufferedBytes: Int = 32 << 20,
                             onClose: @escaping @Sendable () -> Void = {}) -> LineEvents {
        let (inner, continuation) = AsyncStream.makeStream(of: LineEvent.self, bufferingPolicy: .unbounded)
        let pending = PendingBytes(limit: bufferedBytes)
        BlockingThread.start(name: "matrix-reader") {
            var splitter = LineSplitter(maximumLength: maximumLength)
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                pending.waitForRoom()
                let count = buffer.withUnsafeMutableBytes { read(fileDescriptor, $0.baseAddress, $0.count) }
                if count > 0 {
                    for piece in splitter.append(buffer[0..<count]) {
                        let event = LineEvent(piece)
                        pending.add(event.byteCount)
                        continuation.yield(event)
                    }
                    continue
                }
                if count < 0, errno == EINTR { continue }
                if count < 0, errno == EAGAIN {
                    var poller = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
                    _ = poll(&poller, 1, 100)
                    continue
                }
                break
            }
            for piece in splitter.finish() { continuation.yield(LineEvent(piece)) }
            continuation.yield(.end)
            continuation.finish()
            onClose()
        }
        return LineEvents(stream: inner, pending: pending)
    }
}

/// The lines a ``LineReader`` reads, for one consumer: taking a line makes room for the reader.
public struct LineEvents: AsyncSequence, Sendable {
    public typealias Element = LineEvent
    let stream: AsyncStream<LineEvent>
    let pending: PendingBytes

    public func makeAsyncIterator() -> Iterator {
        Iterator(base: stream.makeAsyncIterator(), pending: pending)
    }

    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncStream<LineEvent>.Iterator
        let pending: PendingBytes

        public mutating func next() async -> LineEvent? {
            let event = await base.next()
            if let event { pending.remove(event.byteCount) }
            return event
        }
    }
}

/// The bytes of lines read but not yet taken by the consumer, and a wait for room below a limit.
///
/// `@unchecked Sendable`: `bytes` is read and written only with `condition` locked.
final class PendingBytes: @unchecked Sendable {
    private let condition = NSCondition()
    private let limit: Int
    /// Guarded by `condition`'s lock.
    private var bytes = 0

    init(limit: Int) {
        self.limit = limit
    }

    /// Blocks the reading thread while more than the limit is waiting.
    func waitForRoom() {
        condition.lock()
        while bytes > limit { condition.wait() }
        condition.unlock()
    }

    func add(_ count: Int) {
        condition.lock()
        bytes += count
        condition.unlock()
    }

    /// Takes `count` bytes off; a reader waiting for room is woken (under the condition's lock, so the wake-up
    /// cannot fall between its check and its wait).
    func remove(_ count: Int) {
        condition.lock()
        bytes -= count
        condition.signal()
        condition.unlock()
    }
}

extension LineEvent {
    /// The memory the event takes, roughly, for buffer limits: its bytes and a fixed overhead, so that many
    /// short lines count for what they cost.
    public var byteCount: Int {
        switch self {
        case .line(let bytes): return bytes.count + 64
        case .overlong(let prefix): return prefix.count + 64
        case .end: return 0
        }
    }

    init(_ piece: LineSplitter.Piece) {
        switch piece {
        case .line(let bytes): self = .line(bytes)
        case .overlong(let prefix): self = .overlong(prefix: prefix)
        }
    }
}
