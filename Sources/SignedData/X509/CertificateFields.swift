import Foundation

/// What an X.509 certificate (RFC 5280 §4.1) says, read from its DER: the fields `X509Certificate` reports. The
/// signature and the chain are checked by the platform's own library, never here.
struct CertificateFields: Sendable {
    /// The serial number's INTEGER contents.
    var serial: [UInt8]
    var issuer: DistinguishedName
    var subject: DistinguishedName
    var notBefore: Date
    var notAfter: Date
    /// The SubjectPublicKeyInfo, whole.
    var subjectPublicKeyInfo: [UInt8]
    /// The public key's kind as OpenSSL names it: `EC prime256v1`, `EC secp384r1`, `RSA 4096`, …
    var publicKeySummary: String
    /// Whether the key is an EC key on P-256.
    var isP256: Bool
    /// Each extension's `extnValue` contents by dotted OID; the first of a repeated OID, as OpenSSL's lookup.
    var extensions: [String: [UInt8]]

    /// Reads a DER `Certificate`; trailing bytes are not allowed.
    ///
    /// - Throws: ``DERError`` naming what is missing or malformed.
    init(der bytes: [UInt8]) throws(DERError) {
        let reader = DERReader(bytes: bytes)
        let certificate = try reader.element(at: 0, limit: bytes.count, tag: DERElement.sequence, "the certificate")
        guard certificate.end == bytes.count else { throw DERError("bytes follow the certificate") }
        let parts = try reader.children(of: certificate)
        guard parts.count == 3, parts[0].tag == DERElement.sequence, parts[1].tag == DERElement.sequence,
              parts[2].tag == DERElement.bitString else {
            throw DERError("a certificate is a to-be-signed part, a signature algorithm and a signature")
        }
        var fields = try reader.children(of: parts[0])[...]
        if fields.first?.tag == DERElement.explicit(0) { fields = fields.dropFirst() }  // version
        guard fields.count >= 6 else { throw DERError("the to-be-signed part lacks fields") }
        let serial = fields[fields.startIndex], issuer = fields[fields.startIndex + 2], validity = fields[fields.startIndex + 3]
        let subject = fields[fields.startIndex + 4], key = fields[fields.startIndex + 5]
        guard serial.tag == DERElement.integer, !serial.contents.isEmpty else { throw DERError("the serial number is not an INTEGER") }
        self.serial = Array(reader.contents(of: serial))
        self.issuer = try DistinguishedName(reader, issuer)
        self.subject = try DistinguishedName(reader, subject)
        let times = try reader.children(of: validity)
        guard validity.tag == DERElement.sequence, times.count == 2,
              let notBefore = Self.date(reader, times[0]), let notAfter = Self.date(reader, times[1]) else {
            throw DERError("the validity is not two times")
        }
        self.notBefore = notBefore
        self.notAfter = notAfter
        guard key.tag == DERElement.sequence else { throw DERError("the public key is not a SubjectPublicKeyInfo") }
        subjectPublicKeyInfo = Array(bytes[key.encoding])
        (publicKeySummary, isP256) = Self.summary(reader, key)
        var extensions: [String: [UInt8]] = [:]
        for field in fields.dropFirst(6) where field.tag == DERElement.explicit(3) {
            guard let list = try reader.children(of: field).first, list.tag == DERElement.sequence else {
                throw DERError("the extensions are not a SEQUENCE")
            }
            for item in try reader.children(of: list) {
                let members = try reader.children(of: item)
                guard item.tag == DERElement.sequence, let oid = members.first.flatMap(reader.objectIdentifier),
                      let value = members.last, value.tag == DERElement.octetString, members.count <= 3 else {
                    throw DERError("an extension is not an OID, a criticality and an OCTET STRING")
                }
                if extensions[oid] == nil { extensions[oid] = Array(reader.contents(of: value)) }
            }
        }
        self.extensions = extensions
    }

    /// A UTCTime (years 1950–2049) or GeneralizedTime in UTC, to the second.
    static func date(_ reader: DERReader, _ element: DERElement) -> Date? {
        let text = Array(reader.contents(of: element))
        let digits: Int
        switch element.tag {
        case DERElement.utcTime: digits = 12
        case DERElement.generalizedTime: digits = 14
        default: return nil
        }
        guard text.count == digits + 1, text.last == 0x5a /* Z */, text.dropLast().allSatisfy({ (0x30 ... 0x39).contains($0) }) else {
            return nil
        }
        func number(_ range: Range<Int>) -> Int { text[range].reduce(0) { $0 * 10 + Int($1 - 0x30) } }
        var year = digits == 12 ? number(0 ..< 2) : number(0 ..< 4)
        if digits == 12 { year += year < 50 ? 2000 : 1900 }
        let rest = digits - 10
        let (month, day) = (number(rest ..< rest + 2), number(rest + 2 ..< rest + 4))
        let (hour, minute, second) = (number(rest + 4 ..< rest + 6), number(rest + 6 ..< rest + 8), number(rest + 8 ..< rest + 10))
        guard (1 ... 12).contains(month), (1 ... 31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        // Days from 1970-01-01 to the date in the proleptic Gregorian calendar (H. Hinnant's days_from_civil).
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    /// OpenSSL's short names of the curves and key types certificates carry.
    static let curveNames = ["1.2.840.10045.3.1.7": "prime256v1", "1.3.132.0.34": "secp384r1", "1.3.132.0.35": "secp521r1",
                             "1.3.132.0.10": "secp256k1"]
    static let keyTypeNames = ["1.3.101.112": "ED25519", "1.3.101.113": "ED448", "1.2.840.10040.4.1": "DSA"]

    /// The key's kind, and whether it is P-256.
    static func summary(_ reader: DERReader, _ key: DERElement) -> (String, Bool) {
        guard let parts = try? reader.children(of: key), parts.count == 2, parts[0].tag == DERElement.sequence,
              let algorithm = try? reader.children(of: parts[0]), let oid = algorithm.first.flatMap(reader.objectIdentifier) else {
            return ("undecodable key", false)
        }
        switch oid {
        case "1.2.840.10045.2.1":
            let curve = algorithm.count > 1 ? reader.objectIdentifier(algorithm[1]) : nil
            return ("EC \(curve.flatMap { curveNames[$0] } ?? "unknown curve")", curve == "1.2.840.10045.3.1.7")
        case "1.2.840.113549.1.1.1":
            // The BIT STRING holds RSAPublicKey ::= SEQUENCE { modulus INTEGER, publicExponent INTEGER }.
            let bits = reader.contents(of: parts[1]).dropFirst()
            let inner = DERReader(bytes: Array(bits))
            guard let sequence = try? inner.element(at: 0, limit: inner.bytes.count), let numbers = try? inner.children(of: sequence),
                  let modulus = numbers.first else { return ("RSA", false) }
            let value = inner.contents(of: modulus).drop { $0 == 0 }
            let width = value.first.map { 8 - $0.leadingZeroBitCount } ?? 0
            return ("RSA \(max(0, value.count - 1) * 8 + width)", false)
        default:
            return (keyTypeNames[oid] ?? oid, false)
        }
    }
}
