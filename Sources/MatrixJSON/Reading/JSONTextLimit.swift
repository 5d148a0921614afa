/// The longest string or key a matrix or catalog may hold.
///
/// A matrix's name, case ids, descriptions, product ids and tier names are copied into every evidence record
/// and every report, so their length multiplies: a 50 MB name would make hundreds of megabytes of evidence.
/// No name Apple or a matrix needs comes close to the limit (App Store Connect caps a product id at 100
/// characters).
public enum JSONTextLimit {
    /// 4 KB, in UTF-8 bytes.
    public static let maximumBytes = 4096

    /// Reports every string and key under `value` longer than ``maximumBytes`` (``DiagnosticCode/textTooLong``),
    /// at its location, until `sink` is full.
    ///
    /// - Parameter pointer: `value`'s JSON Pointer.
    public static func check(_ value: JSONValue, pointer: String = "", _ sink: DiagnosticCollector) {
        // Each value waits with its depth and its key or index; `path` holds those of the value being looked at and
        // its containers, and a pointer is put together only for a string that is reported (building one for
        // every value was most of the check's time).
        var pending: [(value: JSONValue, depth: Int, token: Token?)] = [(value, 0, nil)]
        var path: [Token] = []
        func pointerOfPath() -> String {
            path.reduce(pointer) { pointer, token in
                switch token {
                case .key(let key): JSONPointer.append(pointer, key)
                case .index(let index): JSONPointer.append(pointer, index)
                }
            }
        }
        while let (value, depth, token) = pending.popLast(), !sink.isFull {
            if let token {
                path.removeSubrange((depth - 1)...)
                path.append(token)
            }
            switch value.kind {
            case .string(let text):
                if text.utf8.count > maximumBytes { report(text, "a string", pointer: pointerOfPath(), at: value.location, sink) }
            case .array(let elements):
                for (index, element) in elements.enumerated().reversed() {
                    pending.append((element, depth + 1, .index(index)))
                }
            case .object(let object):
                for member in object.members.reversed() {
                    // A key too long is reported with the start of it only, and what is under it is not looked at:
                    // each of its pointers would hold the whole key.
                    if member.key.utf8.count > maximumBytes {
                        report(member.key, "a key", pointer: JSONPointer.append(pointerOfPath(), String(member.key.prefix(40)) + "…"), at: member.keyLocation, sink)
                    } else {
                        pending.append((member.value, depth + 1, .key(member.key)))
                    }
                }
            case .null, .bool, .number:
                break
            }
        }
    }

    /// A member's key or an element's index, on the way from the checked value to one inside it.
    private enum Token {
        case key(String)
        case index(Int)
    }

    /// Reports `text`, which the caller found longer than ``maximumBytes``.
    private static func report(_ text: String, _ what: String, pointer: String, at location: SourceLocation, _ sink: DiagnosticCollector) {
        let bytes = text.utf8.count
        sink.error(.textTooLong, "\(what) of \(bytes) bytes, longer than the \(maximumBytes) allowed", pointer: pointer, at: location,
                   hint: "names, ids and descriptions are copied into every record and report; shorten it")
    }
}
