import Foundation

/// The one rule for JSON the project reads back as evidence or exchanges with other programs: evidence records,
/// `run.json`, `archive.json`, driver messages, and the headers and payloads of signed data.
///
/// A document must be RFC 8259 JSON in which no object names a key twice. RFC 8259 §4 leaves the meaning of a
/// repeated name to each reader, and readers differ (Foundation's `JSONDecoder` on Linux keeps the first,
/// ``JSONObject`` and most JavaScript and Python readers the last), so a document with one would mean one thing
/// to this tool and another to the next; it is refused.
/// The document is read by ``JSONReader``, which gives every problem a line, a column and a JSON Pointer, and
/// only a document that passes is decoded, so whichever member a decoder would have picked no longer matters.
///
/// Matrices and `.storekit` files are not read through here: they are edited by people, and a repeated key
/// there is the MX004 warning ``JSONReader`` reports (the last one is used).
public enum StrictJSON {
    /// Reads `bytes` as one JSON document without duplicate keys.
    ///
    /// - Throws: ``StrictJSONError`` for a syntax or encoding error, or the first duplicate key.
    public static func parse(_ bytes: some Collection<UInt8>) throws(StrictJSONError) -> JSONValue {
        let result = JSONReader.read(bytes)
        if let error = result.diagnostics.first(where: { $0.severity == .error }) {
            throw StrictJSONError(.invalidJSON, error.message, pointer: error.pointer, location: error.location)
        }
        if let duplicate = result.diagnostics.first(where: { $0.code == .duplicateKey }) {
            let key = duplicate.pointer.split(separator: "/", omittingEmptySubsequences: false).last.map {
                $0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            } ?? ""
            throw StrictJSONError(.duplicateKey(key), "duplicate key \"\(key)\": each key may appear once in an object",
                                  pointer: duplicate.pointer, location: duplicate.location)
        }
        guard let value = result.value else {
            throw StrictJSONError(.invalidJSON, "not a JSON document", pointer: "", location: nil)
        }
        return value
    }

    /// Reads `data` as ``parse(_:)`` does, then decodes it as `type`.
    ///
    /// - Throws: ``StrictJSONError``: what ``parse(_:)`` throws, or `.wrongShape` when the document is not a `type`,
    ///   located at the value that is not.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data, decoder: JSONDecoder = JSONDecoder()) throws(StrictJSONError) -> T {
        let tree = try parse(data)
        do {
            return try decoder.decode(type, from: data)
        } catch let error as DecodingError {
            throw StrictJSONError(decoding: error, in: tree)
        } catch {
            throw StrictJSONError(.wrongShape, "\(error)", pointer: "", location: nil)
        }
    }
}

/// Why a document was refused by ``StrictJSON``: what is wrong, and where.
public struct StrictJSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem it is.
    public enum Kind: Sendable, Hashable {
        /// Not JSON at all: a syntax or encoding error, or an empty document.
        case invalidJSON
        /// An object names this key twice.
        case duplicateKey(String)
        /// JSON without duplicate keys, but not the shape expected: a missing member, a wrong type or value.
        case wrongShape
    }

    public var kind: Kind
    /// What is wrong, without the place: `duplicate key "alg": each key may appear once in an object`.
    public var reason: String
    /// JSON Pointer (RFC 6901) to the offending value; `""` for the whole document.
    public var pointer: String
    /// Where in the document, when known: 1-based line and column (UTF-8 bytes).
    public var location: SourceLocation?

    public init(_ kind: Kind, _ reason: String, pointer: String, location: SourceLocation?) {
        self.kind = kind
        self.reason = reason
        self.pointer = pointer
        self.location = location
    }

    /// Whether the problem is a repeated key.
    public var isDuplicateKey: Bool {
        if case .duplicateKey = kind { return true }
        return false
    }

    /// `line 1, column 17: duplicate key "alg": each key may appear once in an object (at /alg)`.
    public var description: String {
        let place = location.map { "line \($0.line), column \($0.column): " } ?? ""
        return place + reason + (pointer.isEmpty ? "" : " (at \(pointer))")
    }

    /// The problem placed in a file, compiler-style: `path:line:column: reason (at /pointer)`. `line` is the
    /// file's line on which the document starts (a JSON Lines record), so the reported line is the file's.
    public func located(in path: String, line firstLine: Int = 1) -> String {
        let place = location.map { "\(path):\(firstLine + $0.line - 1):\($0.column)" } ?? path
        return "\(place): " + reason + (pointer.isEmpty ? "" : " (at \(pointer))")
    }

    /// A decoding error of `JSONDecoder`, placed at the value of `tree` it is about.
    init(decoding error: DecodingError, in tree: JSONValue) {
        func pointer(_ path: [any CodingKey]) -> String {
            path.reduce(into: "") { pointer, key in
                pointer = key.intValue.map { JSONPointer.append(pointer, $0) } ?? JSONPointer.append(pointer, key.stringValue)
            }
        }
        switch error {
        case .typeMismatch(let type, let context):
            let value = Self.value(at: context.codingPath, in: tree)
            self.init(.wrongShape, "expected \(Self.describe(type)), found \(value?.typeDescription ?? "something else")",
                      pointer: pointer(context.codingPath), location: value?.location)
        case .valueNotFound(let type, let context):
            let value = Self.value(at: context.codingPath, in: tree)
            self.init(.wrongShape, "expected \(Self.describe(type)), found \(value?.typeDescription ?? "nothing")",
                      pointer: pointer(context.codingPath), location: value?.location)
        case .keyNotFound(let key, let context):
            let parent = Self.value(at: context.codingPath, in: tree)
            self.init(.wrongShape, "missing key \"\(key.stringValue)\"", pointer: pointer(context.codingPath), location: parent?.location)
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            // Foundation's decoder reports a number of the wrong kind (1.5 for a whole number, 1e400) this way, without
            // the member's path: the numbers it may have refused are found in the tree, the likeliest first.
            if let suspect = Self.refusableNumbers(in: tree).min(by: { $0.rank < $1.rank }) {
                self.init(.wrongShape, "the number \(TerminalText.visible(String(suspect.text.prefix(40)))) \(suspect.why) (the decoder "
                          + "refused a number without saying which; this one is the likeliest)", pointer: suspect.pointer, location: suspect.location)
            } else {
                self.init(.wrongShape, "a member holds a value of the wrong kind (the decoder does not say which member: "
                          + "\(context.debugDescription))", pointer: "", location: nil)
            }
        case .dataCorrupted(let context):
            let value = Self.value(at: context.codingPath, in: tree)
            let words = context.debugDescription.isEmpty ? "a value that is not valid here" : context.debugDescription
            self.init(.wrongShape, words, pointer: pointer(context.codingPath), location: value?.location)
        @unknown default:
            self.init(.wrongShape, "\(error)", pointer: "", location: nil)
        }
    }

    /// A number a decoder may refuse: where it is, as written, why, and how likely (`rank` 0 beyond a Double's
    /// range, 1 a whole number beyond 64 bits, 2 a number with a fraction or an exponent, refused where a whole
    /// number belongs).
    private struct RefusableNumber {
        var pointer: String
        var text: String
        var location: SourceLocation
        var why: String
        var rank: Int
    }

    /// The numbers of `tree` a decoder may refuse, in document order.
    private static func refusableNumbers(in tree: JSONValue) -> [RefusableNumber] {
        var found: [RefusableNumber] = []
        func walk(_ value: JSONValue, _ pointer: String) {
            switch value.kind {
            case .number(let text):
                if let double = Double(text), !double.isFinite {
                    found.append(RefusableNumber(pointer: pointer, text: text, location: value.location, why: "is beyond the range of a number", rank: 0))
                } else if !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) {
                    if Int64(text) == nil {
                        found.append(RefusableNumber(pointer: pointer, text: text, location: value.location,
                                                     why: "is beyond the range of a 64-bit whole number", rank: 1))
                    }
                } else {
                    found.append(RefusableNumber(pointer: pointer, text: text, location: value.location, why: "is not a whole number", rank: 2))
                }
            case .array(let elements):
                for (index, element) in elements.enumerated() { walk(element, JSONPointer.append(pointer, index)) }
            case .object(let object):
                for member in object.members { walk(member.value, JSONPointer.append(pointer, member.key)) }
            case .null, .bool, .string:
                break
            }
        }
        walk(tree, "")
        return found
    }

    /// The value a coding path leads to; `nil` where the path leaves the tree.
    private static func value(at path: [any CodingKey], in tree: JSONValue) -> JSONValue? {
        var value = tree
        for key in path {
            if let index = key.intValue, let elements = value.arrayValue {
                guard elements.indices.contains(index) else { return nil }
                value = elements[index]
            } else if let object = value.objectValue, let member = object[key.stringValue] {
                value = member
            } else {
                return nil
            }
        }
        return value
    }

    /// A JSON type name for a Swift type a decoder expected.
    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type, is Substring.Type: return "a string"
        case is Bool.Type: return "true or false"
        case is Int.Type, is Int64.Type, is Int32.Type, is Int16.Type, is Int8.Type,
             is UInt.Type, is UInt64.Type, is UInt32.Type, is UInt16.Type, is UInt8.Type: return "an integer"
        case is Double.Type, is Float.Type: return "a number"
        default:
            let name = String(describing: type)
            if name.hasPrefix("Array<") || name.hasPrefix("[") && !name.contains(":") { return "an array" }
            return "an object"
        }
    }
}
