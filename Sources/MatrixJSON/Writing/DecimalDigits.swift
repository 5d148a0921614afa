extension Array where Element == UInt8 {
    /// Appends `value` in decimal ASCII digits (a leading `-` when negative), without an intermediate string.
    @inlinable
    public mutating func appendDecimal(_ value: Int64) {
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = 20
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude != 0
            if value < 0 { append(UInt8(ascii: "-")) }
            append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }
}
