import MatrixJSON

/// Appends to the arrays and objects of a JSON document by inserting text, leaving every other byte as written.
///
/// Containers are found by the member path from the root (`["tiers", "pro"]`); new items are written in the
/// authoring style at the indentation of the container's last line plus two spaces, or on the container's line
/// when it is written on one line.
struct SourceEditor {
    private let bytes: [UInt8]
    private let root: JSONValue
    /// Byte offset of each line's start, 0-based; line 1 starts at 0.
    private let lineStarts: [Int]
    private var insertions: [(offset: Int, sequence: Int, text: String)] = []

    init(_ bytes: [UInt8]) throws(MatrixUpdater.Problem) {
        guard case .success(let root) = JSONReader.parse(bytes), root.objectValue != nil else {
            throw MatrixUpdater.Problem(message: "the matrix is not a JSON object")
        }
        self.bytes = bytes
        self.root = root
        var starts = [0]
        for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") { starts.append(index + 1) }
        lineStarts = starts
    }

    /// The document with every insertion made.
    func result() -> [UInt8] {
        var output = bytes
        for insertion in insertions.sorted(by: { ($0.offset, $0.sequence) > ($1.offset, $1.sequence) }) {
            output.insert(contentsOf: Array(insertion.text.utf8), at: insertion.offset)
        }
        return output
    }

    /// Appends `elements` to the array at `path`.
    mutating func append(_ elements: [JSONText], toArrayAt path: [String]) throws(MatrixUpdater.Problem) {
        guard !elements.isEmpty else { return }
        let value = try self.value(at: path)
        guard let items = value.arrayValue else { throw problem(path, "is not an array") }
        try insert(elements.map { $0.text(.authoring) }, into: value, empty: items.isEmpty, path: path)
    }

    /// Appends `members` to the object at `path`; when there is none and `creatingAfter` names a root member, adds
    /// the object after that member.
    mutating func append(members: [(String, JSONText)], toObjectAt path: [String], creatingAfter sibling: String? = nil) throws(MatrixUpdater.Problem) {
        guard !members.isEmpty else { return }
        if path.count == 1, root.objectValue?[path[0]] == nil, let sibling, let after = root.objectValue?[sibling] {
            let indent = indentation(ofLineAt: offset(after.location))
            let text = Self.member(path[0], .object(members))
            insertions.append((closing(of: after) + 1, insertions.count, ",\n" + String(repeating: " ", count: indent) + reindented(text, by: indent)))
            return
        }
        let value = try self.value(at: path)
        guard let object = value.objectValue else { throw problem(path, "is not an object") }
        try insert(members.map { Self.member($0.0, $0.1) }, into: value, empty: object.members.isEmpty, path: path)
    }

    // MARK: Positions

    private func value(at path: [String]) throws(MatrixUpdater.Problem) -> JSONValue {
        var value = root
        for (depth, key) in path.enumerated() {
            guard let next = value.objectValue?[key] else { throw problem(Array(path[...depth]), "is missing") }
            value = next
        }
        return value
    }

    private func problem(_ path: [String], _ what: String) -> MatrixUpdater.Problem {
        MatrixUpdater.Problem(message: "/\(path.joined(separator: "/")) \(what); add it, or run matrix init without --update")
    }

    /// The byte offset of a 1-based line and column.
    private func offset(_ location: SourceLocation) -> Int {
        min(lineStarts[min(location.line, lineStarts.count) - 1] + location.column - 1, bytes.count)
    }

    /// The offset of the bracket that closes the container starting at `value`.
    private func closing(of value: JSONValue) -> Int {
        var index = offset(value.location)
        var depth = 0
        var inString = false
        while index < bytes.count {
            let byte = bytes[index]
            if inString {
                if byte == UInt8(ascii: "\\") { index += 1 } else if byte == UInt8(ascii: "\"") { inString = false }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                depth += 1
            } else if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                depth -= 1
                if depth == 0 { return index }
            }
            index += 1
        }
        return bytes.count
    }

    /// The number of spaces that start the line holding `offset`.
    private func indentation(ofLineAt offset: Int) -> Int {
        var start = offset
        while start > 0, bytes[start - 1] != UInt8(ascii: "\n") { start -= 1 }
        var count = 0
        while start + count < bytes.count, bytes[start + count] == UInt8(ascii: " ") { count += 1 }
        return count
    }

    /// Inserts `items` (rendered at indentation 0) before the closing bracket of `container`.
    private mutating func insert(_ items: [String], into container: JSONValue, empty: Bool, path: [String]) throws(MatrixUpdater.Problem) {
        let open = offset(container.location)
        let close = closing(of: container)
        guard close < bytes.count else { throw problem(path, "is not closed") }
        let multiline = bytes[open..<close].contains(UInt8(ascii: "\n"))
        // After the last item (or the opening bracket), before the whitespace that precedes the closing bracket.
        var end = close
        while end > open + 1, [UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "\r")].contains(bytes[end - 1]) { end -= 1 }
        if multiline || items.contains(where: { $0.contains("\n") }) {
            let indent = indentation(ofLineAt: close) + 2
            let body = items.map { String(repeating: " ", count: indent) + reindented($0, by: indent) }.joined(separator: ",\n")
            if empty {
                insertions.append((end, insertions.count, "\n" + body + "\n" + String(repeating: " ", count: indent - 2)))
            } else {
                insertions.append((end, insertions.count, ",\n" + body))
            }
        } else {
            insertions.append((end, insertions.count, (empty ? "" : ", ") + items.joined(separator: ", ")))
        }
    }

    /// `"key": value` in the authoring style, at indentation 0.
    private static func member(_ key: String, _ value: JSONText) -> String {
        JSONText.string(key).text(.authoring) + ": " + value.text(.authoring)
    }

    /// `text` with every line after the first indented by `indent` more spaces.
    private func reindented(_ text: String, by indent: Int) -> String {
        let pad = String(repeating: " ", count: indent)
        return text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            .map { $0.offset == 0 ? String($0.element) : pad + $0.element }.joined(separator: "\n")
    }
}
