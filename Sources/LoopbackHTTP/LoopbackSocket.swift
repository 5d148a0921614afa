import Foundation
import Threading
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP socket on 127.0.0.1, non-blocking, read and written against a deadline with `poll()`. Nothing here
/// ever binds or connects to another address.
///
/// `@unchecked Sendable`: it wraps a file descriptor, which the kernel serialises; one exchange uses it at a time.
final class LoopbackSocket: @unchecked Sendable {
    let fd: Int32
    /// When set, every wait on the socket ends within a tenth of a second with ``Failure/cancelled``.
    let cancellation: CancellationFlag?

    /// Why a socket operation did not complete.
    enum Failure: Error, Sendable, Hashable {
        /// Nothing listens on the port (`ECONNREFUSED`).
        case refused
        /// The deadline passed.
        case timedOut
        /// The other side closed or reset the connection.
        case closed
        /// Another system error, with its text.
        case system(String)
        /// The exchange was cancelled (``CancellationFlag``).
        case cancelled
    }

    init(fd: Int32, cancellation: CancellationFlag? = nil) {
        self.fd = fd
        self.cancellation = cancellation
    }

    deinit {
        close(fd)
    }


    /// 127.0.0.1:`port`, as a socket address.
    static func address(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        return address
    }

    static var streamType: Int32 {
        #if canImport(Glibc)
        Int32(SOCK_STREAM.rawValue)
        #else
        SOCK_STREAM
        #endif
    }

    static func systemFailure(_ what: String) -> Failure {
        .system("\(what): \(String(cString: strerror(errno)))")
    }

    /// A listening socket on 127.0.0.1:`port` (0 picks a free port); returns it with its port.
    static func listen(port: UInt16, backlog: Int32 = 64) throws(Failure) -> (socket: LoopbackSocket, port: UInt16) {
        let fd = socket(AF_INET, streamType, 0)
        guard fd >= 0 else { throw systemFailure("socket") }
        let socket = LoopbackSocket(fd: fd)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        var yes: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.address(port: port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw systemFailure("cannot listen on 127.0.0.1:\(port)") }
        guard cListen(fd, backlog) == 0 else { throw systemFailure("listen") }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        socket.makeNonBlocking()
        return (socket, UInt16(bigEndian: actual.sin_port))
    }

    /// Connects to 127.0.0.1:`port` before `deadline`.
    static func connect(port: UInt16, deadline: ContinuousClock.Instant, cancellation: CancellationFlag? = nil) throws(Failure) -> LoopbackSocket {
        if cancellation?.isSet == true { throw .cancelled }
        let fd = socket(AF_INET, streamType, 0)
        guard fd >= 0 else { throw systemFailure("socket") }
        let socket = LoopbackSocket(fd: fd, cancellation: cancellation)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        socket.makeNonBlocking()
        var address = Self.address(port: port)
        let started = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { cConnect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if started != 0 {
            if errno == ECONNREFUSED { throw .refused }
            guard errno == EINPROGRESS || errno == EINTR else { throw systemFailure("connect") }
            try socket.wait(for: Int16(POLLOUT), until: deadline)
            var problem: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &problem, &length)
            if problem == ECONNREFUSED { throw .refused }
            guard problem == 0 else { throw .system("connect: \(String(cString: strerror(problem)))") }
        }
        return socket
    }

    func makeNonBlocking() {
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        #if canImport(Darwin)
        var yes: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    /// Shuts the connection down in both directions: a thread waiting in ``read(maximum:until:)`` or
    /// ``write(_:until:)`` on it wakes at once and sees the end of the stream or a failure. The descriptor stays
    /// open until the socket is released, so it cannot name another file meanwhile.
    func shutdownBoth() {
        _ = shutdown(fd, Int32(SHUT_RDWR))
    }

    /// Waits until the socket is ready for `events` or `deadline` passes.
    func wait(for events: Int16, until deadline: ContinuousClock.Instant) throws(Failure) {
        while true {
            if cancellation?.isSet == true { throw .cancelled }
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { throw .timedOut }
            var milliseconds = Int32(clamping: max(1, remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000))
            // A cancellable wait looks at its flag at least ten times a second.
            if cancellation != nil { milliseconds = min(milliseconds, 100) }
            var entry = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&entry, 1, milliseconds)
            if ready > 0 { return }
            if ready < 0, errno != EINTR { throw Self.systemFailure("poll") }
        }
    }

    /// Accepts one connection, waiting at most until `deadline`; `nil` when none came.
    func accept(until deadline: ContinuousClock.Instant) throws(Failure) -> LoopbackSocket? {
        do {
            try wait(for: Int16(POLLIN), until: deadline)
        } catch .timedOut {
            return nil
        }
        let client = cAccept(fd, nil, nil)
        guard client >= 0 else {
            if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR || errno == ECONNABORTED { return nil }
            throw Self.systemFailure("accept")
        }
        let socket = LoopbackSocket(fd: client)
        _ = fcntl(client, F_SETFD, FD_CLOEXEC)
        socket.makeNonBlocking()
        return socket
    }

    /// Reads what is there (at most `maximum` bytes), waiting until `deadline`; an empty array at the end of the
    /// stream.
    func read(maximum: Int, until deadline: ContinuousClock.Instant) throws(Failure) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: max(1, maximum))
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 { return Array(buffer.prefix(count)) }
            if count == 0 { return [] }
            if errno == EINTR { continue }
            if errno == ECONNRESET { throw .closed }
            guard errno == EAGAIN || errno == EWOULDBLOCK else { throw Self.systemFailure("recv") }
            try wait(for: Int16(POLLIN), until: deadline)
        }
    }

    /// Writes every byte before `deadline`.
    func write(_ bytes: [UInt8], until deadline: ContinuousClock.Instant) throws(Failure) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { raw in
                send(fd, raw.baseAddress.map { $0 + offset }, raw.count - offset, Self.sendFlags)
            }
            if count > 0 {
                offset += count
                continue
            }
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EPIPE || errno == ECONNRESET { throw .closed }
            guard count < 0, errno == EAGAIN || errno == EWOULDBLOCK else { throw Self.systemFailure("send") }
            try wait(for: Int16(POLLOUT), until: deadline)
        }
    }

    static var sendFlags: Int32 {
        #if canImport(Glibc)
        Int32(MSG_NOSIGNAL)
        #else
        0
        #endif
    }
}

/// Set once to cancel the exchanges of the sockets that hold it (a task cancelled, a run stopped by a signal).
final class CancellationFlag: Sendable {
    private let flag = Locked(false)

    var isSet: Bool { flag.withLock { $0 } }

    func set() { flag.withLock { $0 = true } }
}

// The C functions whose names Swift code here shadows (`listen`, `connect`, `accept` are also the names of
// this type's methods).
private func cListen(_ fd: Int32, _ backlog: Int32) -> Int32 { listen(fd, backlog) }
private func cConnect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 { connect(fd, address, length) }
private func cAccept(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: UnsafeMutablePointer<socklen_t>?) -> Int32 {
    accept(fd, address, length)
}

/// Ports of 127.0.0.1.
public enum LoopbackPorts {
    /// A port that was free a moment ago: bound and closed at once, for a child process to listen on. Another
    /// process may take it in between; a backend that cannot bind it fails to start, and says so.
    public static func unused() throws(HTTPWireFailure) -> UInt16 {
        do {
            return try LoopbackSocket.listen(port: 0).port
        } catch {
            throw HTTPWireFailure(error)
        }
    }
}
