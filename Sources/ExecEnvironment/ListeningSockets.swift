import Foundation

/// Which process listens on a TCP port of 127.0.0.1, read from /proc (Linux): the listening sockets of the port
/// (`/proc/net/tcp`, `/proc/net/tcp6`) and the processes that hold them (`/proc/PID/fd`). Elsewhere nothing is
/// known, and callers fall back to what they can see without it.
package enum ListeningSockets {
    /// Who holds the port's listening socket, as far as can be told.
    package enum Holder: Sendable, Hashable {
        /// One of the given processes.
        case owned
        /// Nothing listens on the port.
        case nobody
        /// Another process; its process IDs when they could be found (a process of another user's is not).
        case other([Int32])
        /// This system does not say (not Linux, or /proc unreadable).
        case unknown
    }

    /// Who holds the listening socket a connection to 127.0.0.1:`port` reaches: `first` (looked at alone first,
    /// as it usually is the one), one of `others` (found only when needed: finding them reads all of /proc), or
    /// another process.
    package static func holder(of port: UInt16, first: Int32, others: () -> [Int32]) -> Holder {
        #if os(Linux)
        guard let inodes = listening(port: port) else { return .unknown }
        if inodes.isEmpty { return .nobody }
        if !sockets(of: first).isDisjoint(with: inodes) { return .owned }
        for pid in others() where !sockets(of: pid).isDisjoint(with: inodes) { return .owned }
        let others = DriverContainment.processes().map(\.pid).filter { !sockets(of: $0).isDisjoint(with: inodes) }
        return .other(others.sorted())
        #else
        _ = port
        _ = first
        _ = others
        return .unknown
        #endif
    }

    #if os(Linux)
    /// The inodes of the listening sockets that 127.0.0.1:`port` reaches (bound to 127.0.0.1 or to every
    /// address, IPv4 or dual-stack IPv6), or `nil` when /proc/net cannot be read.
    static func listening(port: UInt16) -> Set<UInt64>? {
        var inodes: Set<UInt64> = []
        var readAny = false
        // The addresses as /proc writes them: hexadecimal, in the kernel's byte order (little-endian here).
        let reached = ["00000000", "0100007F", String(repeating: "0", count: 32), "0000000000000000FFFF00000100007F"]
        for file in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = snapshot(file) else { continue }
            readAny = true
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
                guard fields.count > 9, fields[3] == "0A" else { continue }
                let local = fields[1].split(separator: ":")
                guard local.count == 2, UInt16(local[1], radix: 16) == port, reached.contains(String(local[0]).uppercased()),
                      let inode = UInt64(fields[9]), inode != 0 else { continue }
                inodes.insert(inode)
            }
        }
        return readAny ? inodes : nil
    }

    /// A /proc file read in as few reads as it takes, each as large as the file: the kernel writes the socket
    /// tables a buffer at a time, and a socket opened or closed between two reads can make the next one skip a
    /// line (with hundreds of connections opening and closing, a listening socket went missing from a read in
    /// small pieces).
    static func snapshot(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { break }
            bytes += buffer.prefix(count)
            // The tables are bounded by the system's sockets; 64 MiB is past any of them.
            guard bytes.count < 64 << 20 else { return nil }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The inodes of the sockets `pid` holds open (`/proc/PID/fd/N` → `socket:[INODE]`); empty when they cannot
    /// be read.
    static func sockets(of pid: Int32) -> Set<UInt64> {
        let directory = "/proc/\(pid)/fd"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        var inodes: Set<UInt64> = []
        for name in names {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + name),
                  target.hasPrefix("socket:["), target.hasSuffix("]"), let inode = UInt64(target.dropFirst(8).dropLast()) else { continue }
            inodes.insert(inode)
        }
        return inodes
    }
    #endif
}
