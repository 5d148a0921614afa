/// One element of a DER encoding (ITU-T X.690): its tag and where its contents lie in the bytes it was read from.
struct DERElement: Sendable, Hashable {
    /// The identifier octet (class, constructed bit and tag number below 31).
    var tag: UInt8
    /// Where the element starts (its identifier octet).
    var start: Int
    /// Where its contents lie.
    var contents: Range<Int>

    /// Where the next element starts.
    var end: Int { contents.upperBound }
    /// The element's whole encoding: identifier, length and contents.
    var encoding: Range<Int> { start ..< end }

    static let integer: UInt8 = 0x02
    static let bitString: UInt8 = 0x03
    static let octetString: UInt8 = 0x04
    static let null: UInt8 = 0x05
    static let objectIdentifier: UInt8 = 0x06
    static let boolean: UInt8 = 0x01
    static let utcTime: UInt8 = 0x17
    static let generalizedTime: UInt8 = 0x18
    static let sequence: UInt8 = 0x30
    static let set: UInt8 = 0x31

    /// A context-specific constructed tag, `[number]` EXPLICIT.
    static func explicit(_ number: UInt8) -> UInt8 { 0xa0 | number }
}

/// A reader of DER: definite lengths only, tag numbers below 31, every length checked against what is left, so
/// that no input makes it read outside the bytes or loop. Certificates are parsed with it on every platform; the
/// platform's own library checks signatures and chains.
struct DERReader {
    let bytes: [UInt8]

    /// The element at `offset`, which must end at or before `limit`.
    ///
    /// - Throws: ``DERError`` when the bytes there are not one DER element.
    func element(at offset: Int, limit: Int) throws(DERError) -> DERElement {
        guard offset >= 0, limit <= bytes.count, offset + 2 <= limit else { throw DERError("an element is cut short") }
        let tag = bytes[offset]
        guard tag & 0x1f != 0x1f else { throw DERError("a tag number above 30, which certificates do not use") }
        let first = bytes[offset + 1]
        var cursor = offset + 2
        var length = 0
        if first < 0x80 {
            length = Int(first)
        } else {
            let count = Int(first & 0x7f)
            guard count >= 1, count <= 4 else { throw DERError(count == 0 ? "an indefinite length, which DER forbids" : "a length of more than 4 bytes") }
            guard cursor + count <= limit else { throw DERError("a length is cut short") }
            for index in 0 ..< count { length = length << 8 | Int(bytes[cursor + index]) }
            guard length >= 0x80, count == 1 || bytes[cursor] != 0 else { throw DERError("a length not in its shortest form") }
            cursor += count
        }
        guard length <= limit - cursor else { throw DERError("an element longer than what holds it") }
        return DERElement(tag: tag, start: offset, contents: cursor ..< cursor + length)
    }

    /// The element at `offset` with tag `tag`.
    func element(at offset: Int, limit: Int, tag: UInt8, _ what: String) throws(DERError) -> DERElement {
        let found = try element(at: offset, limit: limit)
        guard found.tag == tag else { throw DERError("\(what) is not where it belongs") }
        return found
    }

    /// The elements inside a constructed element, in order; they must fill it exactly.
    func children(of parent: DERElement) throws(DERError) -> [DERElement] {
        var found: [DERElement] = []
        var offset = parent.contents.lowerBound
        while offset < parent.contents.upperBound {
            let child = try element(at: offset, limit: parent.contents.upperBound)
            found.append(child)
            offset = child.end
        }
        return found
    }

    /// The contents of an element.
    func contents(of element: DERElement) -> ArraySlice<UInt8> {
        bytes[element.contents]
    }

    /// An OBJECT IDENTIFIER in dotted decimal, or `nil` when it is not well formed.
    func objectIdentifier(_ element: DERElement) -> String? {
        guard element.tag == DERElement.objectIdentifier, !element.contents.isEmpty else { return nil }
        var arcs: [UInt64] = []
        var value: UInt64 = 0
        var started = false
        for byte in bytes[element.contents] {
            if !started && byte == 0x80 { return nil }  // a leading 0x80 pads an arc, which DER forbids
            guard value <= (UInt64.max >> 7) else { return nil }
            value = value << 7 | UInt64(byte & 0x7f)
            started = true
            if byte & 0x80 == 0 {
                arcs.append(value)
                value = 0
                started = false
            }
        }
        guard !started, let first = arcs.first else { return nil }
        let head: [UInt64] = first < 40 ? [0, first] : first < 80 ? [1, first - 40] : [2, first - 80]
        return (head + arcs.dropFirst()).map(String.init).joined(separator: ".")
    }
}

/// Bytes that are not the DER of what was expected.
struct DERError: Error, Sendable, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
