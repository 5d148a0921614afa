import EvidenceStore
import Foundation
import MatrixJSON
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the bytes of a tar stream come from: the output of `gzip -d`, or memory.
protocol TarByteSource {
    /// Reads up to `buffer.count` bytes; returns 0 at the end of the stream.
    ///
    /// - Throws: ``RunArchiveError`` when the stream cannot be read.
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(RunArchiveError) -> Int
}

/// A tar stream held in memory (tests and fuzzing).
struct MemoryTarSource: TarByteSource {
    var bytes: [UInt8]
    var offset = 0

    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(RunArchiveError) -> Int {
        let count = min(buffer.count, bytes.count - offset)
        guard count > 0 else { return 0 }
        bytes.withUnsafeBytes { source in
            buffer.baseAddress?.copyMemory(from: source.baseAddress! + offset, byteCount: count)
        }
        offset += count
        return count
    }
}

/// Unpacks a tar stream (POSIX ustar and pax, and GNU tar's long names: what GNU tar and bsdtar write for
/// `matrix archive`) into a directory, refusing everything a run archive never holds.
///
/// Only regular files and directories are written, each created here (files exclusively, never through a link),
/// so nothing lands outside the directory. Refused, with the member named: a name that is absolute, has a `..`
/// component, a NUL, or is the name of an earlier member; links, devices, FIFOs and sparse files; a member or
/// an archive over its ``ArchiveLimits``; a header whose checksum is wrong; data after the end of the archive;
/// unpacking past its deadline, or after an ``Interruption``.
struct TarReader<Source: TarByteSource> {
    private var source: Source
    private let directory: URL
    private let limits: ArchiveLimits
    private let interruption: Interruption
    /// The archive as messages name it.
    private let display: String
    private let deadline: ContinuousClock.Instant

    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    private var start = 0
    private var end = 0
    private var total: Int64 = 0
    private var members = 0
    private var names: Set<String> = []

    /// Longest name a GNU long-name or pax header may give.
    static var maximumNameLength: Int { 4096 }
    /// Largest pax extended header read.
    static var maximumExtendedHeader: Int { 1 << 16 }
    /// Zero bytes accepted after the end-of-archive block (GNU tar pads to 10 KiB records).
    static var maximumTrailingBytes: Int { 1 << 20 }

    init(source: Source, directory: URL, limits: ArchiveLimits, interruption: Interruption, display: String) {
        self.source = source
        self.directory = directory
        self.limits = limits
        self.interruption = interruption
        self.display = display
        deadline = ContinuousClock.now + limits.maximumDuration
    }

    /// Unpacks every member.
    ///
    /// - Returns: the names of the members, normalised (`./` and repeated `/` removed), in archive order.
    /// - Throws: ``RunArchiveError``: `notAnArchive` for a damaged or truncated stream, `unsafeEntry` for a
    ///   member a run archive never holds, `limitExceeded`, `interrupted`, `cannotWrite`.
    mutating func unpack() throws(RunArchiveError) -> [String] {
        var order: [String] = []
        var pendingName: String?
        var pendingSize: Int64?
        var metadata = 0
        while true {
            try checkTime()
            guard let header = try readBlock() else {
                throw damaged("ends without the end-of-archive marker")
            }
            if header.allSatisfy({ $0 == 0 }) {
                try readTrailer()
                return order
            }
            try checkChecksum(header)
            let type = header[156]
            let declared = try number(header[124..<136], field: "size")
            switch type {
            case UInt8(ascii: "L"), UInt8(ascii: "x"), UInt8(ascii: "g"):
                metadata += 1
                // Metadata describes the member that follows; a stream of nothing else is not an archive.
                guard metadata <= 4 else { throw damaged("holds header after header without a member") }
                let cap = type == UInt8(ascii: "L") ? Self.maximumNameLength + 1 : Self.maximumExtendedHeader
                guard declared <= Int64(cap) else {
                    throw RunArchiveError(.unsafeEntry, path: display,
                                          message: "\(display) has an extended header of \(declared) bytes, more than the \(cap) tar needs; it was not made by matrix archive")
                }
                let data = try readData(Int(declared))
                if type == UInt8(ascii: "L") {
                    pendingName = String(decoding: data.prefix { $0 != 0 }, as: UTF8.self)
                } else {
                    let fields = try paxFields(data)
                    if type == UInt8(ascii: "x") {
                        if let path = fields["path"] { pendingName = path }
                        if let size = fields["size"] {
                            guard let value = Int64(size), value >= 0 else { throw damaged("has a pax size \"\(TerminalText.visible(size))\" that is not a number") }
                            pendingSize = value
                        }
                    } else if fields["path"] != nil || fields["size"] != nil {
                        throw RunArchiveError(.unsafeEntry, path: display,
                                              message: "\(display) has a global pax header that renames or resizes every member; it was not made by matrix archive")
                    }
                }
                continue
            default:
                break
            }
            let name = pendingName ?? Self.headerName(header)
            let size = pendingSize ?? declared
            pendingName = nil
            pendingSize = nil
            metadata = 0
            let normalised = try normalise(name)
            switch type {
            case UInt8(ascii: "0"), 0, UInt8(ascii: "7"):
                try admit(normalised, size: size)
                try writeFile(normalised, size: size)
                order.append(normalised)
            case UInt8(ascii: "5"):
                try admit(normalised, size: 0)
                guard size == 0 else { throw damaged("has a directory \"\(TerminalText.visible(name))\" with data") }
                if !normalised.isEmpty { try makeDirectories(normalised, includingLast: true) }
                order.append(normalised)
            default:
                let what = switch type {
                case UInt8(ascii: "1"): "a hard link"
                case UInt8(ascii: "2"), UInt8(ascii: "K"): "a symbolic link"
                case UInt8(ascii: "3"), UInt8(ascii: "4"): "a device"
                case UInt8(ascii: "6"): "a FIFO"
                case UInt8(ascii: "S"): "a sparse file"
                default: "of tar type \(type < 0x20 || type > 0x7E ? "\\u{\(String(type, radix: 16, uppercase: true))}" : String(UnicodeScalar(type)))"
                }
                throw RunArchiveError(.unsafeEntry, path: display,
                                      message: "\(display) has a member \"\(TerminalText.visible(name))\" that is \(what), neither a file nor a directory; it was not made by matrix archive")
            }
        }
    }

    // MARK: - Members

    /// Counts a member against the limits and refuses a second member of one name.
    private mutating func admit(_ name: String, size: Int64) throws(RunArchiveError) {
        members += 1
        guard members <= limits.maximumMembers else {
            throw limit("has more than \(limits.maximumMembers) members")
        }
        guard size <= limits.maximumMemberSize else {
            throw limit("has a member \"\(TerminalText.visible(name))\" of \(size) bytes, more than the \(limits.maximumMemberSize) bytes a member may have")
        }
        total += size
        guard total <= limits.maximumTotalSize else {
            throw limit("holds more than \(limits.maximumTotalSize) bytes in all")
        }
        // Two members of one name: tar keeps the last, another reader may keep the first.
        guard name.isEmpty || names.insert(name).inserted else {
            throw RunArchiveError(.unsafeEntry, path: display,
                                  message: "\(display) holds \"\(TerminalText.visible(name))\" twice, so what it contains depends on the reader; it was not made by matrix archive")
        }
    }

    /// `name` without `./`, empty components and a trailing `/`; refused when it would leave the directory.
    private func normalise(_ name: String) throws(RunArchiveError) -> String {
        let unsafe = { (why: String) in
            RunArchiveError(.unsafeEntry, path: display,
                            message: "\(display) has a member \"\(TerminalText.visible(name))\" that \(why); it was not made by matrix archive")
        }
        if name.hasPrefix("/") { throw unsafe("would be written outside the directory it is unpacked into") }
        if name.utf8.contains(0) { throw unsafe("holds a NUL") }
        if name.utf8.count > Self.maximumNameLength { throw unsafe("is longer than \(Self.maximumNameLength) bytes") }
        let components = name.split(separator: "/", omittingEmptySubsequences: true).filter { $0 != "." }
        if components.contains("..") { throw unsafe("would be written outside the directory it is unpacked into") }
        if components.contains(where: { $0.utf8.count > 255 }) { throw unsafe("has a component longer than 255 bytes") }
        return components.joined(separator: "/")
    }

    private func makeDirectories(_ name: String, includingLast: Bool) throws(RunArchiveError) {
        let components = name.split(separator: "/")
        var path = directory.path
        for component in components.dropLast(includingLast ? 0 : 1) {
            path += "/" + component
            if mkdir(path, 0o700) == 0 { continue }
            let number = errno
            var info = stat()
            guard number == EEXIST, lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
                if number == EEXIST {
                    throw RunArchiveError(.unsafeEntry, path: display,
                                          message: "\(display) has a member \"\(TerminalText.visible(name))\" below a file of the archive; it was not made by matrix archive")
                }
                throw cannotWrite(path, number)
            }
        }
    }

    private mutating func writeFile(_ name: String, size: Int64) throws(RunArchiveError) {
        guard !name.isEmpty else { throw damaged("has a file without a name") }
        try makeDirectories(name, includingLast: false)
        let path = directory.path + "/" + name
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let number = errno
            if number == EEXIST || number == EISDIR || number == ELOOP {
                throw RunArchiveError(.unsafeEntry, path: display,
                                      message: "\(display) has a member \"\(TerminalText.visible(name))\" where a directory of the archive is; it was not made by matrix archive")
            }
            throw cannotWrite(path, number)
        }
        defer { close(fd) }
        var remaining = size
        while remaining > 0 {
            try checkTime()
            if start == end { try fill() }
            let count = Int(min(Int64(end - start), remaining))
            var offset = 0
            while offset < count {
                let written = buffer.withUnsafeBytes { write(fd, $0.baseAddress! + start + offset, count - offset) }
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { throw cannotWrite(path, written < 0 ? errno : ENOSPC) }
                offset += written
            }
            start += count
            remaining -= Int64(count)
        }
        try skip(Self.padding(size))
    }

    // MARK: - Headers

    /// The name in a ustar header: `prefix/name` for POSIX ustar, `name` for the GNU format (whose prefix
    /// field holds times).
    static func headerName(_ header: [UInt8]) -> String {
        func text(_ range: Range<Int>) -> String {
            String(decoding: header[range].prefix { $0 != 0 }, as: UTF8.self)
        }
        let name = text(0..<100)
        let posix = header[257..<263].elementsEqual([0x75, 0x73, 0x74, 0x61, 0x72, 0x00])  // "ustar\0"
        let prefix = posix ? text(345..<500) : ""
        return prefix.isEmpty ? name : prefix + "/" + name
    }

    /// A numeric field: octal digits between spaces or NULs, or GNU's base-256 (first byte 0x80).
    private func number(_ field: ArraySlice<UInt8>, field name: String) throws(RunArchiveError) -> Int64 {
        guard let first = field.first else { throw damaged("has an empty \(name) field") }
        if first & 0x80 != 0 {
            guard first == 0x80, field.count >= 9, field.dropFirst().prefix(field.count - 9).allSatisfy({ $0 == 0 }) else {
                throw damaged("has a \(name) field too large for any archive")
            }
            var value: Int64 = 0
            for byte in field.suffix(8) { value = value << 8 | Int64(byte) }
            guard value >= 0 else { throw damaged("has a \(name) field too large for any archive") }
            return value
        }
        var value: Int64 = 0
        var digits = 0
        var ended = false
        for byte in field {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "7") where !ended:
                value = value * 8 + Int64(byte - UInt8(ascii: "0"))
                digits += 1
            case 0x20, 0:
                if digits > 0 { ended = true }
            default:
                throw damaged("has a \(name) field that is not an octal number")
            }
        }
        return value
    }

    private func checkChecksum(_ header: [UInt8]) throws(RunArchiveError) {
        let recorded = try number(header[148..<156], field: "checksum")
        var unsigned: Int64 = 0
        var signed: Int64 = 0
        for (index, byte) in header.enumerated() {
            let value = (148..<156).contains(index) ? 0x20 : byte
            unsigned += Int64(value)
            signed += Int64(Int8(bitPattern: value))
        }
        guard recorded == unsigned || recorded == signed else { throw damaged("has a header whose checksum is wrong") }
    }

    /// The `key=value` records of a pax extended header (`<length> <key>=<value>\n` each).
    private func paxFields(_ data: [UInt8]) throws(RunArchiveError) -> [String: String] {
        var fields: [String: String] = [:]
        var index = 0
        while index < data.count {
            if data[index] == 0 { break }
            guard let space = data[index...].firstIndex(of: 0x20),
                  let length = Int(String(decoding: data[index..<space], as: UTF8.self)), length > space - index,
                  length <= data.count - index, data[index + length - 1] == 0x0A,
                  let equals = data[(space + 1)..<(index + length)].firstIndex(of: UInt8(ascii: "=")) else {
                throw damaged("has a pax extended header that is not a list of records")
            }
            let key = String(decoding: data[(space + 1)..<equals], as: UTF8.self)
            let value = String(decoding: data[(equals + 1)..<(index + length - 1)], as: UTF8.self)
            if key.hasPrefix("GNU.sparse.") {
                throw RunArchiveError(.unsafeEntry, path: display,
                                      message: "\(display) has a member that is a sparse file, neither a file nor a directory as matrix archive writes them; it was not made by matrix archive")
            }
            fields[key] = value
            index += length
        }
        return fields
    }

    /// After the end-of-archive block: nothing but zeros, as tar pads its last record.
    private mutating func readTrailer() throws(RunArchiveError) {
        var seen = 0
        while true {
            try checkTime()
            if start == end {
                guard try fillAllowingEnd() else { return }
            }
            guard buffer[start..<end].allSatisfy({ $0 == 0 }) else { throw damaged("holds data after the end of the archive") }
            seen += end - start
            start = end
            guard seen <= Self.maximumTrailingBytes else { throw damaged("holds more than \(Self.maximumTrailingBytes) bytes after the end of the archive") }
        }
    }

    // MARK: - Bytes

    static func padding(_ size: Int64) -> Int {
        Int((512 - size % 512) % 512)
    }

    /// The next 512-byte block, or `nil` at the end of the stream.
    private mutating func readBlock() throws(RunArchiveError) -> [UInt8]? {
        if start == end, !(try fillAllowingEnd()) { return nil }
        let data = try readData(512, allowEmpty: true)
        return data.isEmpty ? nil : data
    }

    /// `count` bytes and the padding after them.
    private mutating func readData(_ count: Int, allowEmpty: Bool = false) throws(RunArchiveError) -> [UInt8] {
        var data: [UInt8] = []
        data.reserveCapacity(count)
        while data.count < count {
            try checkTime()
            if start == end {
                guard try fillAllowingEnd() else {
                    if allowEmpty && data.isEmpty { return [] }
                    throw damaged("ends in the middle of a member")
                }
            }
            let take = min(end - start, count - data.count)
            data.append(contentsOf: buffer[start..<(start + take)])
            start += take
        }
        if count % 512 != 0 { try skip(Self.padding(Int64(count))) }
        return data
    }

    private mutating func skip(_ count: Int) throws(RunArchiveError) {
        var remaining = count
        while remaining > 0 {
            if start == end { try fill() }
            let take = min(end - start, remaining)
            start += take
            remaining -= take
        }
    }

    private mutating func fill() throws(RunArchiveError) {
        guard try fillAllowingEnd() else { throw damaged("ends in the middle of a member") }
    }

    /// Refills the buffer; `false` at the end of the stream.
    private mutating func fillAllowingEnd() throws(RunArchiveError) -> Bool {
        if interruption.isInterrupted { throw RunArchiveError.interrupted(display) }
        // The buffer is moved out while the source fills it, so that the two are never accessed at once.
        var chunk = buffer
        buffer = []
        defer { buffer = chunk }
        let count: Int
        do {
            count = try chunk.withUnsafeMutableBytes { try source.read(into: $0) }
        } catch let error as RunArchiveError {
            throw error
        } catch {
            throw damaged("cannot be read (\(error))")
        }
        if interruption.isInterrupted { throw RunArchiveError.interrupted(display) }
        start = 0
        end = count
        return count > 0
    }

    private func checkTime() throws(RunArchiveError) {
        if interruption.isInterrupted { throw RunArchiveError.interrupted(display) }
        if ContinuousClock.now > deadline {
            throw limit("took longer than \(limits.maximumDuration) to unpack")
        }
    }

    // MARK: - Errors

    private func damaged(_ what: String) -> RunArchiveError {
        RunArchiveError(.notAnArchive, path: display, message: "\(display) is not a readable tar archive: it \(what)")
    }

    private func limit(_ what: String) -> RunArchiveError {
        RunArchiveError(.limitExceeded, path: display,
                        message: "\(display) \(what); it was not unpacked further (a run archive stays far below the limits: "
                            + "\(limits.maximumMembers) members, \(limits.maximumMemberSize) bytes a member, \(limits.maximumTotalSize) bytes in all)")
    }

    private func cannotWrite(_ path: String, _ number: Int32) -> RunArchiveError {
        RunArchiveError(.cannotWrite, path: path,
                        message: "cannot unpack \(display) into \(path): \(String(cString: strerror(number))); check TMPDIR and the free disk space")
    }
}
