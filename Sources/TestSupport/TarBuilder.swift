import Foundation

/// Writes tar streams byte by byte for tests: ustar headers with any type, name and declared size, so that an
/// archive can hold what no `tar` would write.
public struct TarBuilder {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    /// A header: `type` `0` file, `5` directory, `2` symbolic link, `L` GNU long name, `x` pax, `S` sparse…;
    /// `size` as the header declares it, `data` as it follows (padded to 512 bytes).
    public mutating func entry(_ name: String, type: Character = "0", size: Int64? = nil, data: [UInt8] = [], link: String = "") {
        var header = [UInt8](repeating: 0, count: 512)
        func put(_ text: String, at offset: Int, length: Int) {
            for (index, byte) in text.utf8.prefix(length).enumerated() { header[offset + index] = byte }
        }
        put(name, at: 0, length: 100)
        put("0000644", at: 100, length: 8)
        put("0000000", at: 108, length: 8)
        put("0000000", at: 116, length: 8)
        let declared = size ?? Int64(data.count)
        if declared < 0o77777777777 {
            put(String(repeating: "0", count: max(0, 11 - String(declared, radix: 8).count)) + String(declared, radix: 8), at: 124, length: 12)
        } else {
            // GNU base-256 for sizes of 8 GiB and more.
            header[124] = 0x80
            for index in 0..<8 { header[135 - index] = UInt8(truncatingIfNeeded: declared >> (8 * index)) }
        }
        put("00000000000", at: 136, length: 12)
        header[156] = type.asciiValue ?? 0x30
        put(link, at: 157, length: 100)
        put("ustar", at: 257, length: 6)
        put("00", at: 263, length: 2)
        for index in 148..<156 { header[index] = 0x20 }
        let sum = header.reduce(0) { $0 + Int($1) }
        put(String(repeating: "0", count: max(0, 6 - String(sum, radix: 8).count)) + String(sum, radix: 8) + "\0 ", at: 148, length: 8)
        bytes += header
        bytes += data
        bytes += [UInt8](repeating: 0, count: (512 - data.count % 512) % 512)
    }

    /// A pax extended header (`x`) with `fields`, for the entry that follows.
    public mutating func pax(_ fields: [(String, String)]) {
        var data: [UInt8] = []
        for (key, value) in fields {
            let body = " \(key)=\(value)\n"
            var length = body.utf8.count + 1
            while String(length).utf8.count + body.utf8.count != length { length += 1 }
            data += Array((String(length) + body).utf8)
        }
        entry("PaxHeaders/x", type: "x", data: data)
    }

    /// Raw bytes, as they are.
    public mutating func append(_ raw: [UInt8]) {
        bytes += raw
    }

    /// The end of the archive: two blocks of zeros.
    public mutating func end() {
        bytes += [UInt8](repeating: 0, count: 1024)
    }
}
