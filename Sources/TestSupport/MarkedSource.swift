import Testing
import MatrixJSON

/// Source text with position markers, so a test can state exactly where a diagnostic must point.
///
/// A marker is a name in angle brackets, `⟨1⟩` or `⟨product⟩`, written just before the character it marks.
/// Markers are removed from ``text``; ``location(_:)`` gives the 1-based line and column (in UTF-8 bytes,
/// as ``SourceLocation`` counts them) of the character that followed the marker.
///
///     let source = MarkedSource(#"{ "a": ⟨1⟩tru }"#)
///     // source.text == #"{ "a": tru }"#, source.location("1") == SourceLocation(line: 1, column: 8)
public struct MarkedSource: Sendable {
    /// The text without markers.
    public let text: String
    /// Marker names and the positions they mark.
    public let markers: [String: MatrixJSON.SourceLocation]

    public init(_ marked: String) {
        var text = ""
        var markers: [String: MatrixJSON.SourceLocation] = [:]
        var line = 1
        var column = 1
        var remaining = Substring(marked)
        while let character = remaining.first {
            if character == "⟨", let close = remaining.firstIndex(of: "⟩") {
                let name = String(remaining[remaining.index(after: remaining.startIndex)..<close])
                markers[name] = MatrixJSON.SourceLocation(line: line, column: column)
                remaining = remaining[remaining.index(after: close)...]
                continue
            }
            text.append(character)
            if character.unicodeScalars.contains("\n") {  // "\r\n" is one Character; the reader counts the LF
                line += 1
                column = 1
            } else {
                column += character.utf8.count
            }
            remaining = remaining.dropFirst()
        }
        self.text = text
        self.markers = markers
    }

    /// The text as UTF-8 bytes, ready for a reader.
    public var bytes: [UInt8] { Array(text.utf8) }

    /// Where marker `name` was; records an issue (and returns line 0, column 0) when there is no such marker.
    public func location(_ name: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> MatrixJSON.SourceLocation {
        guard let location = markers[name] else {
            Issue.record("no marker ⟨\(name)⟩ in the source", sourceLocation: sourceLocation)
            return MatrixJSON.SourceLocation(line: 0, column: 0)
        }
        return location
    }
}
