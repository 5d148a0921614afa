import Threading
/// Collects diagnostics for one file while a ``JSONValue`` tree is decoded by hand.
///
/// Decoders report every problem and carry on with a best guess, so a user sees all problems at once. A
/// collector may be shared by decoders on several threads.
public final class DiagnosticCollector: Sendable {
    /// The most diagnostics a collector keeps by default: a file with more is not worth reading further, and an
    /// absurd one (a million problems) must not cost minutes and gigabytes to report.
    public static let defaultLimit = 1000

    /// The file name used in every diagnostic.
    public let file: String?
    /// The most diagnostics kept; later ones are counted in ``dropped`` only.
    public let limit: Int
    private let collected = Locked<(diagnostics: [Diagnostic], dropped: Int, errors: Bool)>(([], 0, false))

    public init(file: String?, limit: Int = DiagnosticCollector.defaultLimit) {
        self.file = file
        self.limit = max(1, limit)
    }

    /// Every diagnostic reported so far and kept, in the order reported.
    public var diagnostics: [Diagnostic] { collected.withLock { $0.diagnostics } }

    /// Whether ``limit`` diagnostics are kept: decoders stop reading what is left, and ``finish()`` says so.
    public var isFull: Bool { collected.withLock { $0.diagnostics.count >= limit } }

    /// Diagnostics reported after the collector was full.
    public var dropped: Int { collected.withLock { $0.dropped } }

    public func add(_ severity: Diagnostic.Severity, _ code: DiagnosticCode, _ message: String,
                    pointer: String, at location: SourceLocation, hint: String? = nil) {
        let diagnostic = Diagnostic(severity, code, message, file: file, pointer: pointer, location: location, hint: hint)
        keep([diagnostic])
    }

    private func keep(_ new: [Diagnostic]) {
        collected.withLock { state in
            let room = max(0, limit - state.diagnostics.count)
            state.diagnostics.append(contentsOf: new.prefix(room))
            state.dropped += max(0, new.count - room)
            if !state.errors { state.errors = new.contains { $0.severity == .error } }
        }
    }

    /// When the collector filled up, one more error saying that the rest of the file was not checked (a file
    /// that stopped being read cannot be loaded, even if what was read held only warnings).
    ///
    /// - Parameters:
    ///   - pointer: where reading stopped, or the document.
    public func finish(pointer: String = "", at location: SourceLocation = .start) {
        let (full, dropped) = collected.withLock { ($0.diagnostics.count >= limit, $0.dropped) }
        guard full else { return }
        let diagnostic = Diagnostic(.error, .tooManyProblems,
                                    "more than \(limit) problems\(dropped > 0 ? " (\(dropped) more found)" : ""); the rest of the file was not checked",
                                    file: file, pointer: pointer, location: location,
                                    hint: "fix the problems shown, then check the file again")
        collected.withLock { state in
            state.diagnostics.append(diagnostic)
            state.errors = true
        }
    }

    public func error(_ code: DiagnosticCode, _ message: String, pointer: String, at location: SourceLocation, hint: String? = nil) {
        add(.error, code, message, pointer: pointer, at: location, hint: hint)
    }

    public func warning(_ code: DiagnosticCode, _ message: String, pointer: String, at location: SourceLocation, hint: String? = nil) {
        add(.warning, code, message, pointer: pointer, at: location, hint: hint)
    }

    /// Adds diagnostics collected elsewhere, up to ``limit``.
    public func append(contentsOf other: [Diagnostic]) {
        keep(other)
    }

    /// Whether an error was reported (also one dropped past the limit).
    public var hasErrors: Bool { collected.withLock { $0.errors } }
}

/// A value in the tree together with its JSON Pointer, the unit that hand-written decoders pass around.
public struct JSONField: Sendable {
    public var value: JSONValue
    /// The pointer of the value that contains this one, and this value's key or index in it: the whole pointer
    /// is put together only when asked for (for a diagnostic, or for this value's own members).
    private let container: String
    private let token: Token?

    private enum Token {
        case key(String)
        case index(Int)
    }

    /// The value's JSON Pointer (RFC 6901).
    public var pointer: String {
        switch token {
        case nil: container
        case .key(let key): JSONPointer.append(container, key)
        case .index(let index): JSONPointer.append(container, index)
        }
    }

    public init(_ value: JSONValue, pointer: String) {
        self.value = value
        self.container = pointer
        self.token = nil
    }

    private init(_ value: JSONValue, in container: String, _ token: Token) {
        self.value = value
        self.container = container
        self.token = token
    }

    public var location: SourceLocation { value.location }

    /// The elements of an array, each with its pointer; reports a type error and returns `nil` otherwise.
    public func array(_ sink: DiagnosticCollector) -> [JSONField]? {
        guard let elements = value.arrayValue else {
            sink.error(.wrongType, "expected an array, found \(value.typeDescription)", pointer: pointer, at: location)
            return nil
        }
        let pointer = self.pointer
        return elements.enumerated().map { JSONField($1, in: pointer, .index($0)) }
    }

    /// The members of an object, each with its pointer; reports a type error and returns `nil` otherwise.
    public func members(_ sink: DiagnosticCollector) -> [(key: String, keyLocation: SourceLocation, field: JSONField)]? {
        guard let object = value.objectValue else {
            sink.error(.wrongType, "expected an object, found \(value.typeDescription)", pointer: pointer, at: location)
            return nil
        }
        // The last of duplicate keys wins, in the place of its last occurrence; small objects (most of them) are
        // checked without hashing.
        let pointer = self.pointer
        var result: [(key: String, keyLocation: SourceLocation, field: JSONField)] = []
        result.reserveCapacity(object.members.count)
        if object.members.count <= 16 {
            for member in object.members {
                if let earlier = result.firstIndex(where: { $0.key == member.key }) { result.remove(at: earlier) }
                result.append((member.key, member.keyLocation, JSONField(member.value, in: pointer, .key(member.key))))
            }
            return result
        }
        var seen = Set<String>()
        for member in object.members.reversed() where seen.insert(member.key).inserted {
            result.append((member.key, member.keyLocation, JSONField(member.value, in: pointer, .key(member.key))))
        }
        result.reverse()
        return result
    }

    public func string(_ sink: DiagnosticCollector) -> String? {
        guard let s = value.stringValue else {
            sink.error(.wrongType, "expected a string, found \(value.typeDescription)", pointer: pointer, at: location)
            return nil
        }
        return s
    }

    /// A number's text as a message quotes it: whole up to 40 characters, else its first 24 and its length (a
    /// file may hold a number of a million digits).
    static func shortened(_ number: String) -> String {
        number.count <= 40 ? number : "\(number.prefix(24))… (a number of \(number.count) characters)"
    }

    public func bool(_ sink: DiagnosticCollector) -> Bool? {
        guard let b = value.boolValue else {
            sink.error(.wrongType, "expected true or false, found \(value.typeDescription)", pointer: pointer, at: location)
            return nil
        }
        return b
    }

    /// An integer within `range`; reports a type or range error otherwise.
    public func int(_ sink: DiagnosticCollector, in range: ClosedRange<Int> = Int.min...Int.max) -> Int? {
        guard value.numberText != nil else {
            sink.error(.wrongType, "expected an integer, found \(value.typeDescription)", pointer: pointer, at: location)
            return nil
        }
        guard let i = value.intValue, range.contains(i) else {
            let bounds = range == Int.min...Int.max ? "" : " from \(range.lowerBound) to \(range.upperBound)"
            sink.error(.invalidValue, "expected an integer\(bounds), found \(Self.shortened(value.numberText ?? ""))", pointer: pointer, at: location)
            return nil
        }
        return i
    }

    /// An array of strings; reports each element that is not a string.
    public func strings(_ sink: DiagnosticCollector) -> [(String, JSONField)]? {
        guard let elements = array(sink) else { return nil }
        return elements.compactMap { element in element.string(sink).map { ($0, element) } }
    }
}

/// Reads the members of one JSON object by name and reports missing and unknown keys.
///
/// Use ``required(_:)`` and ``optional(_:)`` for each known key, then ``finish()`` to warn about the rest.
public struct ObjectFields {
    public let field: JSONField
    public let sink: DiagnosticCollector
    private let members: [(key: String, keyLocation: SourceLocation, field: JSONField)]
    /// Whether each member was read or ignored, by position in `members`.
    private var read: [Bool]
    /// Every key asked for, present or not: the known keys, for suggestions.
    private var asked: [String]
    /// Whether the value was an object at all.
    public let isObject: Bool

    /// Reads `field` as an object, reporting a type error if it is not one.
    public init(_ field: JSONField, _ sink: DiagnosticCollector) {
        self.field = field
        self.sink = sink
        if let members = field.members(sink) {
            self.members = members
            self.isObject = true
        } else {
            self.members = []
            self.isObject = false
        }
        read = Array(repeating: false, count: members.count)
        asked = []
        asked.reserveCapacity(16)
    }

    /// The member named `key`, or an error (`code`, by default MX011) if it is missing. `null` counts as missing.
    public mutating func required(_ key: String, _ description: String? = nil, code: DiagnosticCode = .missingField) -> JSONField? {
        guard let member = take(key), !member.field.value.isNull else {
            if isObject {
                sink.error(code, "missing required field \"\(key)\"\(description.map { " (\($0))" } ?? "")",
                           pointer: field.pointer, at: field.location)
            }
            return nil
        }
        return member.field
    }

    /// The member named `key`, or `nil` when it is absent or `null`.
    public mutating func optional(_ key: String) -> JSONField? {
        guard let member = take(key), !member.field.value.isNull else { return nil }
        return member.field
    }

    /// Marks `key` as known, and its member as read; returns the member.
    private mutating func take(_ key: String) -> (key: String, keyLocation: SourceLocation, field: JSONField)? {
        asked.append(key)
        guard let index = members.firstIndex(where: { $0.key == key }) else { return nil }
        read[index] = true
        return members[index]
    }

    /// Whether a member named `key` is present (even as `null`).
    public func has(_ key: String) -> Bool {
        members.contains { $0.key == key }
    }

    /// Marks keys as known without reading them.
    public mutating func ignore(_ keys: String...) {
        for key in keys { _ = take(key) }
    }

    /// Marks keys matching `predicate` as known without reading them.
    public mutating func ignore(where predicate: (String) -> Bool) {
        for member in members where predicate(member.key) { _ = take(member.key) }
    }

    /// Reports every member that was neither read nor ignored, suggesting the nearest known key.
    ///
    /// An unknown key is reported with `severity`, except that one close to a known key (a likely typo, such
    /// as `expcet` for `expect`) is always an error: what it holds would otherwise be dropped in silence.
    public func finish(severity: Diagnostic.Severity = .warning) {
        guard read.contains(false) else { return }
        let known = Set(asked)
        for (index, member) in members.enumerated() where !read[index] && !known.contains(member.key) {
            let hint = Suggestion.didYouMean(member.key, among: known)
            let level: Diagnostic.Severity = hint == nil ? severity : .error
            let consequence = level == .error ? "it would be ignored" : "it is ignored"
            sink.add(level, .unknownKey, "unknown key \"\(member.key)\"; \(consequence)",
                     pointer: member.field.pointer, at: member.keyLocation, hint: hint)
        }
    }
}
