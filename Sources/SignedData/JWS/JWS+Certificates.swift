import Foundation
import Signing

extension JWS {
    /// Signs `payload` with header `{"alg":"ES256","x5c":[…]}`.
    ///
    /// - Parameters:
    ///   - payload: The payload bytes, usually JSON.
    ///   - x5c: The chain for the header, leaf first (App Store data: leaf, intermediate, root).
    ///   - key: The leaf certificate's private key.
    /// - Returns: `header.payload.signature`: base64url without padding, signature the raw 64-byte r‖s.
    /// - Throws: ``SignedDataError`` `.cryptoFailure` if signing fails.
    public static func sign(payload: Data, x5c: [X509Certificate], key: P256PrivateKey) throws -> String {
        try JWSSigner(key: key, x5c: x5c).sign(payload: payload)
    }
}

extension JWSSigner {
    /// A signer whose header is `{"alg":"ES256","x5c":[…]}`.
    ///
    /// - Parameters:
    ///   - key: The leaf certificate's private key.
    ///   - x5c: The chain, leaf first; each entry becomes standard base64 (with padding) of its DER.
    public init(key: P256PrivateKey, x5c: [X509Certificate]) {
        self.init(key: key, x5c: x5c.map(\.base64EncodedDER))
    }
}

extension JWSHeader {
    /// Decodes the `x5c` entries.
    ///
    /// - Returns: The certificates, leaf first; empty when there is no `x5c`.
    /// - Throws: ``SignedDataError`` `.invalidCertificate` naming the entry that is not standard base64 of a
    ///   DER certificate.
    public func certificates() throws -> [X509Certificate] {
        try (x5c ?? []).enumerated().map { index, entry in
            guard let der = Data(base64Encoded: entry) else {
                throw SignedDataError(.invalidCertificate, "x5c[\(index)] is not standard base64.")
            }
            do {
                return try X509Certificate(derRepresentation: der)
            } catch let error as SignedDataError {
                throw SignedDataError(.invalidCertificate, "x5c[\(index)] is not a DER X.509 certificate.", detail: error.detail)
            }
        }
    }
}
