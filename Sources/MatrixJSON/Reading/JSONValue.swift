/// A JSON value that remembers where it was written.
///
/// `JSONDecoder` reports no positions, so matrices and `.storekit` files are read into this tree by
/// ``JSONReader`` and then decoded by hand, which lets every diagnostic carry a line, a column and a
/// JSON Pointer.
public struct JSONValue: Sendable, Hashable {
    /// The value itself.
    public enum Kind: Sendable, Hashable {
        case null
        case bool(Bool)
        /// A number, kept as written so that large integers and exact decimals survive.
        case number(String)
        case string(String)
        case array([JSONValue])
        case object(JSONObject)
    }

    public var kind: Kind
    /// Where the value starts in the source.
    public var location: SourceLocation

    public init(_ kind: Kind, at location: SourceLocation = .start) {
        self.kind = kind
        self.location = location
    }

    /// A name for the value's JSON type, as used in diagnostics ("a string", "an object"…).
    public var typeDescription: String {
        switch kind {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    public var stringValue: String? {
        if case .string(let s) = kind { return s }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let b) = kind { return b }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let a) = kind { return a }
        return nil
    }

    public var objectValue: JSONObject? {
        if case .object(let o) = kind { return o }
        return nil
    }

    public var isNull: Bool {
        if case .null = kind { return true }
        return false
    }

    /// The number as written, if the value is a number.
    public var numberText: String? {
        if case .number(let n) = kind { return n }
        return nil
    }

    /// The number as a `Double`, if the value is a finite number.
    public var doubleValue: Double? {
        guard let text = numberText, let d = Double(text), d.isFinite else { return nil }
        return d
    }

    /// The number as an `Int`, if it is an integer that fits (`1.0` and `1e2` count as integers).
    public var intValue: Int? {
        guard let text = numberText else { return nil }
        if let i = Int(text) { return i }
        guard let d = Double(text), d.isFinite, d.rounded() == d, abs(d) < 9.0e15 else { return nil }
        return Int(d)
    }
}

/// A JSON object: members in source order, with the location of each key.
public struct JSONObject: Sendable, Hashable {
    /// One `"key": value` pair.
    public struct Member: Sendable, Hashable {
        public var key: String
        public var keyLocation: SourceLocation
        public var value: JSONValue

        public init(key: String, keyLocation: SourceLocation, value: JSONValue) {
            self.key = key
            self.keyLocation = keyLocation
            self.value = value
        }
    }

    /// Members in source order, duplicates included.
    public var members: [Member]

    public init(members: [Member] = []) {
        self.members = members
    }

    /// The value of the last member named `key` (JSON's usual "last one wins").
    public subscript(key: String) -> JSONValue? {
        members.last { $0.key == key }?.value
    }

    /// The member keys, in source order, without duplicates.
    public var keys: [String] {
        var seen = Set<String>()
        return members.compactMap { seen.insert($0.key).inserted ? $0.key : nil }
    }
}
