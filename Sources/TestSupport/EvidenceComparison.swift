import Foundation
import MatrixModel

/// Two runs of one matrix recorded the same evidence when their records are equal once what differs between runs
/// by nature is set aside: the run id, wall-clock times, the environment's name, and ECDSA signatures (randomised),
/// each JWS compared by its decoded payload, nested JWS included. `scripts/same-evidence.py` is the same rule
/// for run directories.
public enum EvidenceComparison {
    /// Where `a` and `b` differ once what differs by nature is set aside, or `nil` when they record the same.
    public static func difference(_ a: EvidenceRecord, _ b: EvidenceRecord) throws -> String? {
        func bare(_ record: EvidenceRecord) -> EvidenceRecord {
            var record = record
            record.run = ""
            record.wallStart = ""
            record.wallEnd = ""
            record.environment = ""
            record.observed?.signedData = []
            return record
        }
        let (left, right) = (a.observed?.signedData ?? [], b.observed?.signedData ?? [])
        var same = bare(a) == bare(b) && left.count == right.count
        // A transaction's or renewal info's payload is deterministic; a notification's holds JWS of its own.
        for (x, y) in zip(left, right) where same {
            same = x.kind == y.kind && (payload(x.jws) == payload(y.jws)
                || decodingJWS(x.jws) as? NSDictionary == decodingJWS(y.jws) as? NSDictionary)
        }
        if same { return nil }
        return firstDifference(try comparable(a), try comparable(b)) ?? "the signed items differ"
    }

    /// The payload segment of a compact JWS.
    static func payload(_ jws: String) -> Substring? {
        // Split on bytes: splitting on the Character "." walks a kilobyte JWS's grapheme clusters.
        let parts = jws.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return parts.count == 3 ? Substring(parts[1]) : nil
    }

    /// `record` as sorted-key JSON with what differs by nature set aside.
    public static func comparable(_ record: EvidenceRecord) throws -> String {
        var record = record
        record.run = ""
        record.wallStart = ""
        record.wallEnd = ""
        record.environment = ""
        let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(record))
        let data = try JSONSerialization.data(withJSONObject: decodingJWS(object), options: [.sortedKeys, .fragmentsAllowed])
        return String(decoding: data, as: UTF8.self)
    }

    /// Where two comparable records first differ, as a short excerpt of each.
    public static func firstDifference(_ left: String, _ right: String) -> String? {
        guard left != right else { return nil }
        let common = zip(left, right).prefix { $0 == $1 }.count
        let start = max(0, common - 80)
        func excerpt(_ text: String) -> String { String(text.dropFirst(start).prefix(200)) }
        return "…\(excerpt(left))… versus …\(excerpt(right))…"
    }

    /// `value` with every compact JWS replaced by its decoded payload, recursively.
    static func decodingJWS(_ value: Any) -> Any {
        if let object = value as? [String: Any] { return object.mapValues(decodingJWS) }
        if let array = value as? [Any] { return array.map(decodingJWS) }
        if let text = value as? String, text.hasPrefix("eyJ"), let segment = payload(text) {
            var base64 = segment.utf8.map { $0 == UInt8(ascii: "-") ? UInt8(ascii: "+") : $0 == UInt8(ascii: "_") ? UInt8(ascii: "/") : $0 }
            base64 += Array(repeating: UInt8(ascii: "="), count: (4 - base64.count % 4) % 4)
            if let data = Data(base64Encoded: Data(base64)), let decoded = try? JSONSerialization.jsonObject(with: data) {
                return decodingJWS(decoded)
            }
        }
        return value
    }
}
