/// An X.501 Name (RFC 5280 §4.1.2.4) as a certificate encodes it, rendered in RFC 2253 form the way OpenSSL's
/// `X509_NAME_print_ex` does with `XN_FLAG_RFC2253` less `ASN1_STRFLGS_ESC_MSB`: the last RDN first, `,` between
/// RDNs and `+` between the values of one, OpenSSL's short attribute names (dotted OIDs for others, with the value
/// as `#` and its DER in hex), `,+"\<>;` and a leading `#` or space or a trailing space escaped with `\`, control
/// characters as `\XX`, other text as UTF-8. A test holds this to what OpenSSL printed for every fixture.
struct DistinguishedName: Sendable, Hashable {
    struct Attribute: Sendable, Hashable {
        var oid: String
        /// The value's whole DER encoding.
        var value: [UInt8]
        /// Which RDN of the name it belongs to.
        var rdn: Int
    }

    var attributes: [Attribute]

    init(_ reader: DERReader, _ name: DERElement) throws(DERError) {
        guard name.tag == DERElement.sequence else { throw DERError("a name is not a SEQUENCE") }
        var attributes: [Attribute] = []
        for (index, rdn) in try reader.children(of: name).enumerated() {
            guard rdn.tag == DERElement.set else { throw DERError("a relative distinguished name is not a SET") }
            for pair in try reader.children(of: rdn) {
                let members = try reader.children(of: pair)
                guard pair.tag == DERElement.sequence, members.count == 2, let oid = reader.objectIdentifier(members[0]) else {
                    throw DERError("a name attribute is not a type and a value")
                }
                attributes.append(Attribute(oid: oid, value: Array(reader.bytes[members[1].encoding]), rdn: index))
            }
        }
        self.attributes = attributes
    }

    /// OpenSSL's short names of the attribute types names use.
    static let shortNames = [
        "2.5.4.3": "CN", "2.5.4.6": "C", "2.5.4.7": "L", "2.5.4.8": "ST", "2.5.4.10": "O", "2.5.4.11": "OU",
        "2.5.4.5": "serialNumber", "2.5.4.9": "street", "2.5.4.12": "title", "2.5.4.4": "SN", "2.5.4.42": "GN",
        "2.5.4.43": "initials", "2.5.4.44": "generationQualifier", "2.5.4.46": "dnQualifier", "2.5.4.65": "pseudonym",
        "2.5.4.13": "description", "2.5.4.15": "businessCategory", "2.5.4.17": "postalCode", "2.5.4.41": "name",
        "2.5.4.45": "x500UniqueIdentifier", "2.5.4.97": "organizationIdentifier",
        "1.2.840.113549.1.9.1": "emailAddress", "1.2.840.113549.1.9.2": "unstructuredName",
        "0.9.2342.19200300.100.1.25": "DC", "0.9.2342.19200300.100.1.1": "UID",
        "1.3.6.1.4.1.311.60.2.1.1": "jurisdictionL", "1.3.6.1.4.1.311.60.2.1.2": "jurisdictionST",
        "1.3.6.1.4.1.311.60.2.1.3": "jurisdictionC",
    ]

    /// The name in RFC 2253 form.
    var rfc2253: String {
        var text = ""
        var previous: Int?
        for attribute in attributes.reversed() {
            if let previous { text += previous == attribute.rdn ? "+" : "," }
            previous = attribute.rdn
            guard let name = Self.shortNames[attribute.oid] else {
                text += attribute.oid + "=" + Self.dump(attribute.value)
                continue
            }
            text += name + "=" + (Self.string(attribute.value).map(Self.escaped) ?? Self.dump(attribute.value))
        }
        return text
    }

    /// `#` and the DER in upper-case hex, OpenSSL's form for values it does not print as text.
    static func dump(_ der: [UInt8]) -> String {
        let digits = Array("0123456789ABCDEF")
        return "#" + String(der.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0f)]] })
    }

    /// The code points of a string value, as OpenSSL reads each string type (one byte a character for the
    /// single-byte types, UTF-16 for BMPString, UTF-32 for UniversalString); `nil` for a type it dumps or bytes it
    /// cannot read.
    static func string(_ der: [UInt8]) -> [Unicode.Scalar]? {
        let reader = DERReader(bytes: der)
        guard let element = try? reader.element(at: 0, limit: der.count), element.end == der.count else { return nil }
        let bytes = Array(reader.contents(of: element))
        switch element.tag {
        case 0x0c:  // UTF8String
            let text = String(decoding: bytes, as: UTF8.self)
            guard text.utf8.elementsEqual(bytes) else { return nil }  // not UTF-8: decoding replaced something
            return Array(text.unicodeScalars)
        case 0x12, 0x13, 0x14, 0x16, 0x17, 0x18, 0x1a:  // Numeric, Printable, T61, IA5, UTCTime, GeneralizedTime, Visible
            return bytes.compactMap { Unicode.Scalar(UInt32($0)) }
        case 0x1e:  // BMPString
            guard bytes.count % 2 == 0 else { return nil }
            return stride(from: 0, to: bytes.count, by: 2).map { Unicode.Scalar(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1])) ?? "\u{FFFD}" }
        case 0x1c:  // UniversalString
            guard bytes.count % 4 == 0 else { return nil }
            return stride(from: 0, to: bytes.count, by: 4).map { index in
                Unicode.Scalar(bytes[index ..< index + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }) ?? "\u{FFFD}"
            }
        default:
            return nil
        }
    }

    /// RFC 2253 escaping, as OpenSSL's `ASN1_STRFLGS_ESC_2253 | ASN1_STRFLGS_ESC_CTRL`.
    static func escaped(_ scalars: [Unicode.Scalar]) -> String {
        var text = ""
        for (index, scalar) in scalars.enumerated() {
            let value = scalar.value
            if value < 0x20 || value == 0x7f {
                let digits = Array("0123456789ABCDEF")
                text += "\\" + String([digits[Int(value >> 4)], digits[Int(value & 0x0f)]])
            } else if ",+\"\\<>;".unicodeScalars.contains(scalar)
                        || (index == 0 && (scalar == "#" || scalar == " "))
                        || (index == scalars.count - 1 && scalar == " ") {
                text += "\\" + String(scalar)
            } else {
                text.unicodeScalars.append(scalar)
            }
        }
        return text
    }
}
