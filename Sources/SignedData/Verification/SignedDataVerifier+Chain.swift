import Foundation
import Signing

extension SignedDataVerifier {
    /// A chain that verified, from the cache or from a full check.
    struct CheckedChain {
        /// Leaf, intermediate, root.
        var certificates: [X509Certificate]
        /// The leaf's ES256 key, or why it cannot verify ES256 (reported after the marker OIDs are checked,
        /// as a ``SignedDataError/Code/verificationFailure``).
        var leafKey: Result<P256PublicKey, SignedDataError>
    }

    /// Step 3a: the chain from `x5c[0]` through `x5c[1]` to a configured root, valid at `date`.
    ///
    /// A chain whose exact `x5c` DER bytes were verified before, valid at `date`, comes from ``chainCache``
    /// without a certificate signature check; any other chain is checked in full with OpenSSL and, when it
    /// verifies, remembered.
    ///
    /// - Throws: ``SignedDataError`` `.invalidCertificate` when `x5c[0]` or `x5c[1]` is not base64 DER of a
    ///   certificate; `.verificationFailure` when the chain does not verify at `date` or is not three long.
    func verifiedChain(x5c: [String], at date: Date) throws -> CheckedChain {
        var der: [[UInt8]] = []
        der.reserveCapacity(x5c.count)
        for (index, entry) in x5c.prefix(2).enumerated() {
            guard let bytes = Data(base64Encoded: entry) else {
                throw SignedDataError(.invalidCertificate, "x5c[\(index)] is not standard base64.")
            }
            der.append([UInt8](bytes))
        }
        // Like Apple's libraries, the root entry is not used; it only takes part in the cache key, and a chain
        // whose root entry is not base64 is simply not cached.
        let rootEntry = x5c.count > 2 ? Data(base64Encoded: x5c[2]).map { [UInt8]($0) } : nil
        let key = rootEntry.map { VerifiedChainCache.key(forDER: der + [$0]) }
        let second = VerifiedChainCache.second(of: date)
        if chainCacheCapacity > 0, let key, let second, let entry = chainCache.lookup(key, atSecond: second) {
            return CheckedChain(certificates: entry.chain, leafKey: .success(entry.leafKey))
        }

        let certificates = try der.enumerated().map { index, bytes in
            do {
                return try X509Certificate(derRepresentation: bytes)
            } catch let error as SignedDataError {
                throw SignedDataError(.invalidCertificate, "x5c[\(index)] is not a DER X.509 certificate.", detail: error.detail)
            }
        }
        let chain = try X509Certificate.verifyChain(
            leaf: certificates[0],
            intermediates: [certificates[1]],
            roots: rootCertificates,
            at: date,
            strict: strictCertificateChecks
        )
        guard chain.count == 3 else {
            throw SignedDataError(.verificationFailure, "The verified chain has \(chain.count) certificates; App Store data needs leaf, intermediate and root.")
        }
        let leafKey: Result<P256PublicKey, SignedDataError>
        do {
            leafKey = .success(try chain[0].publicKey())
        } catch let error as SignedDataError {
            leafKey = .failure(SignedDataError(.verificationFailure, "The leaf certificate's key cannot verify ES256: \(error.message)"))
        } catch {
            leafKey = .failure(SignedDataError(.verificationFailure, "The leaf certificate's key cannot verify ES256."))
        }
        if chainCacheCapacity > 0, let key, case .success(let publicKey) = leafKey,
           let entry = VerifiedChainCache.Entry(verifiedChain: chain, leafKey: publicKey) {
            chainCache.insert(entry, for: key)
        }
        return CheckedChain(certificates: chain, leafKey: leafKey)
    }
}
