import Foundation
import Testing
@testable import StoreSimulator

/// Notification UUIDs and renewal-extension request identifiers are written without `String(format:)`; they must
/// read exactly as the format did.
@Suite("UUID-shaped identifiers")
struct IdentifierTests {
    @Test("identifier(_:_:_:) writes what %08x-middle-%012d writes, from the smallest values to more than twelve digits",
          arguments: [(UInt32(0), 1), (UInt32(1), 9), (UInt32(0xabc), 123_456), (UInt32(799_999_998), 999_999_999_999),
                       (UInt32.max, 1_000_000_000_000), (UInt32(0x1000_0000), Int.max)] as [(UInt32, Int)])
    func matchesFormat(prefix: UInt32, number: Int) {
        #expect(AppStoreSimulator.identifier(prefix, "0000-4000-8000", number)
                == String(format: "%08x-0000-4000-8000-%012ld", prefix, number))
    }
}
