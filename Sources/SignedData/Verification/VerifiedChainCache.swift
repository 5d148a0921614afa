import Foundation
import Signing
import Threading

/// Remembers certificate chains that a ``SignedDataVerifier`` has verified, so that the next JWS carrying the
/// same `x5c` certificates skips the two CA signature checks (P-384 for Apple's and the simulator's CAs) while
/// still checking its own ES256 signature and the marker OIDs.
///
/// An entry is keyed by the SHA-256 of the exact `x5c` DER bytes (each certificate length-prefixed, in header
/// order) and holds the verified chain, the leaf's public key, and the interval in which the chain is valid:
/// the intersection of the validity periods of every certificate in the verified chain, in whole seconds, with
/// the bounds OpenSSL applies (`X509_cmp_time` compares with `<=`, so a certificate is valid from its
/// `notBefore` second up to, but not including, its `notAfter` second). A lookup only answers for a validation
/// time inside that interval, so a cached chain is never trusted at a moment when a full check would reject
/// it for a date.
///
/// Only successful verifications are stored; failures are always checked again. The cache holds at most
/// ``capacity`` chains and drops the least recently used one when full.
///
/// Apple's Swift library keeps a similar cache (`ChainVerifier.verifiedPublicKeyCache` in
/// apple/app-store-server-library-swift, `Sources/AppStoreServerLibrary/ChainVerifier.swift`): keyed by the
/// leaf and intermediate certificates, at most 32 entries, each trusted for 15 minutes of wall-clock time, and
/// used only with online (OCSP) checks, where every chain is evaluated at the current time. Without online
/// checks chains are evaluated at each payload's `signedDate`, so this cache bounds an entry by the chain's own
/// validity interval instead of a wall-clock lifetime.
final class VerifiedChainCache: Sendable {
    /// A verified chain and what a later JWS needs from it.
    struct Entry: Sendable {
        /// Leaf, intermediate, root, as OpenSSL verified them.
        let chain: [X509Certificate]
        /// The leaf's ES256 verification key.
        let leafKey: P256PublicKey
        /// The latest `notBefore` of the chain, seconds since 1970.
        let validFrom: Int64
        /// The earliest `notAfter` of the chain, seconds since 1970; the chain is no longer valid at this second.
        let validUntil: Int64

        /// Whether OpenSSL finds the chain valid at `seconds`: `validFrom <= seconds < validUntil`.
        func isValid(atSecond seconds: Int64) -> Bool {
            validFrom <= seconds && seconds < validUntil
        }
    }

    /// The most chains kept.
    let capacity: Int
    /// The chains held, each with the use that last touched it, and the lookups counted so far.
    private struct State {
        var entries: [[UInt8]: (entry: Entry, lastUse: UInt64)] = [:]
        var useCounter: UInt64 = 0
        var hitCount = 0
        var missCount = 0
    }

    private let state = Locked(State())

    /// A cache of at most `capacity` chains; a capacity of zero stores nothing.
    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// The cache key of an `x5c` chain: SHA-256 over each certificate's DER preceded by its length (4 bytes,
    /// big-endian), so that no two different chains can share a key by shifting bytes between certificates.
    static func key(forDER certificates: [[UInt8]]) -> [UInt8] {
        var material: [UInt8] = []
        material.reserveCapacity(certificates.reduce(0) { $0 + $1.count + 4 })
        for der in certificates {
            let length = UInt32(truncatingIfNeeded: der.count)
            material.append(contentsOf: [UInt8(length >> 24), UInt8((length >> 16) & 0xFF), UInt8((length >> 8) & 0xFF), UInt8(length & 0xFF)])
            material.append(contentsOf: der)
        }
        return SHA256.hash(material)
    }

    /// The whole second OpenSSL evaluates `date` at (rounded down), or `nil` when it is out of range.
    static func second(of date: Date) -> Int64? {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        guard seconds.isFinite, abs(seconds) < 1e14 else { return nil }
        return Int64(seconds)
    }

    /// The chain stored under `key` when it is valid at `second`; counts a hit or a miss.
    func lookup(_ key: [UInt8], atSecond second: Int64) -> Entry? {
        state.withLock { state in
            guard let stored = state.entries[key], stored.entry.isValid(atSecond: second) else {
                state.missCount += 1
                return nil
            }
            state.useCounter += 1
            state.entries[key] = (stored.entry, state.useCounter)
            state.hitCount += 1
            return stored.entry
        }
    }

    /// Stores a chain that has just been verified, dropping the least recently used one when full.
    func insert(_ entry: Entry, for key: [UInt8]) {
        guard capacity > 0 else { return }
        state.withLock { state in
            if state.entries[key] == nil, state.entries.count >= capacity,
               let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
                state.entries.removeValue(forKey: oldest)
            }
            state.useCounter += 1
            state.entries[key] = (entry, state.useCounter)
        }
    }

    /// Lookups answered from the cache, lookups that were not, and chains held now.
    var statistics: (hits: Int, misses: Int, count: Int) {
        state.withLock { ($0.hitCount, $0.missCount, $0.entries.count) }
    }
}

extension VerifiedChainCache.Entry {
    /// An entry for a chain OpenSSL has verified, valid where all its certificates are.
    ///
    /// - Returns: `nil` when the chain is empty (OpenSSL never returns one).
    init?(verifiedChain chain: [X509Certificate], leafKey: P256PublicKey) {
        guard let from = chain.map(\.notBefore).max().flatMap(VerifiedChainCache.second(of:)),
              let until = chain.map(\.notAfter).min().flatMap(VerifiedChainCache.second(of:)) else {
            return nil
        }
        self.init(chain: chain, leafKey: leafKey, validFrom: from, validUntil: until)
    }
}
