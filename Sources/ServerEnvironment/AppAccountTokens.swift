import Foundation
import SignedData
import Signing

/// The `appAccountToken` each account of a case uses on its purchases in a `server` run: a UUID derived from
/// the run's identity (64 random bits), the case id and the alias, the same for every purchase of the account in the case, and
/// different in every case and every run, since each case starts on a fresh store for a backend that remembers.
///
/// Apple: https://developer.apple.com/documentation/storekit/product/purchaseoption/appaccounttoken(_:)
/// ("a UUID that associates the transaction with a user on your own service").
enum AppAccountTokens {
    /// A version 8 (RFC 9562, custom) UUID from the SHA-256 of the run's identity, case id and alias, lowercase.
    static func token(run: UInt64, caseID: String, account: String) -> String {
        var bytes = Array(SHA256.hash(Data("\(run)\u{0}\(caseID)\u{0}\(account)".utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0f) | 0x80
        bytes[8] = (bytes[8] & 0x3f) | 0x80
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        let parts = [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4), hex.dropFirst(20)]
        return parts.joined(separator: "-")
    }
}
