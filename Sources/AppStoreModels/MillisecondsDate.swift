import MatrixJSON

/// A point in time as the App Store writes it: milliseconds since 1970-01-01T00:00:00Z.
///
/// Decodes whole and fractional numbers (Xcode writes dates such as `1697679936049.7297`); the fraction is
/// dropped. Encodes as an integer.
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/purchasedate
public struct MillisecondsDate: Sendable, Hashable, Codable, Comparable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    /// ms since 1970.
    public var milliseconds: Int64

    public init(_ milliseconds: Int64) {
        self.milliseconds = milliseconds
    }

    public init(integerLiteral value: Int64) {
        self.milliseconds = value
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let whole = try? container.decode(Int64.self) {
            milliseconds = whole
            return
        }
        let value = try container.decode(Double.self)
        guard value.isFinite, abs(value) < 9.0e15 else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "date out of range: \(value)")
        }
        milliseconds = Int64(value.rounded(.down))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(milliseconds)
    }

    public static func < (lhs: MillisecondsDate, rhs: MillisecondsDate) -> Bool { lhs.milliseconds < rhs.milliseconds }

    public var description: String { Timestamp.iso8601(milliseconds: milliseconds) }
}
