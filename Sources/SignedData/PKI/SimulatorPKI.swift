import Foundation
import Signing

/// A signing chain for simulated App Store data: a leaf private key and leaf, intermediate and root
/// certificates shaped like Apple's (marker OIDs on leaf and intermediate).
///
/// ``default`` is the StoreKit Matrix simulator PKI minted by `scripts/mint-simulator-pki.sh` (root
/// "StoreKit Matrix Simulator Root CA (NOT Apple)", valid 2020-01-01 .. 9999-12-31, SKI/AKI present so
/// Apple's Python library accepts it in strict mode). Its leaf key is public test material: data it signs
/// proves nothing and no Apple verifier configured with Apple's roots accepts it.
///
/// Any other chain in the same shape, such as the test PKI of Apple's App Store Server Library, can be
/// loaded with ``init(leafKeyPEM:leafPEM:intermediatePEM:rootPEM:)``.
public struct SimulatorPKI: Sendable {
    /// The leaf's private key (P-256).
    public let leafKey: P256PrivateKey
    /// The signing leaf certificate.
    public let leaf: X509Certificate
    /// The intermediate CA certificate.
    public let intermediate: X509Certificate
    /// The root CA certificate: the trust anchor to give a ``SignedDataVerifier``.
    public let root: X509Certificate
    /// A signer with header `{"alg":"ES256","x5c":[leaf, intermediate, root]}`.
    public let signer: JWSSigner

    /// Leaf, intermediate, root: the order of a JWS `x5c` header.
    public var chain: [X509Certificate] { [leaf, intermediate, root] }

    /// Loads a chain from PEM texts (text before each `-----BEGIN` line is skipped).
    ///
    /// - Parameters:
    ///   - leafKeyPEM: The leaf's P-256 key, SEC1 `EC PRIVATE KEY` or PKCS#8 `PRIVATE KEY`.
    ///   - leafPEM: The leaf certificate.
    ///   - intermediatePEM: The intermediate certificate.
    ///   - rootPEM: The root certificate.
    /// - Throws: ``SignedDataError`` `.invalidKey` or `.invalidCertificate` when a part cannot be read, and
    ///   `.invalidKey` when the key does not belong to the leaf certificate.
    public init(leafKeyPEM: String, leafPEM: String, intermediatePEM: String, rootPEM: String) throws {
        let key = try P256PrivateKey(pemRepresentation: leafKeyPEM)
        let leaf = try X509Certificate(pemRepresentation: leafPEM)
        guard try leaf.publicKey().derRepresentation() == key.publicKey.derRepresentation() else {
            throw SignedDataError(.invalidKey, "The private key does not belong to the leaf certificate \(leaf.subjectSummary).")
        }
        self.leafKey = key
        self.leaf = leaf
        self.intermediate = try X509Certificate(pemRepresentation: intermediatePEM)
        self.root = try X509Certificate(pemRepresentation: rootPEM)
        self.signer = JWSSigner(key: key, x5c: [leaf, intermediate, root])
    }

    /// The StoreKit Matrix simulator PKI (test only, not Apple's).
    ///
    /// - Throws: ``SignedDataError`` only if the embedded PEMs were damaged.
    public static var `default`: SimulatorPKI {
        get throws {
            try defaultResult.get()
        }
    }

    private static let defaultResult: Result<SimulatorPKI, SignedDataError> = {
        do {
            return .success(try SimulatorPKI(leafKeyPEM: SimulatorSigningChain.leafKeyPEM, leafPEM: SimulatorSigningChain.leafPEM,
                                             intermediatePEM: SimulatorSigningChain.intermediatePEM, rootPEM: SimulatorSigningChain.rootPEM))
        } catch let error as SignedDataError {
            return .failure(error)
        } catch {
            return .failure(SignedDataError(.invalidCertificate, "The embedded simulator PKI could not be loaded; re-run scripts/mint-simulator-pki.sh --force."))
        }
    }()

    /// Signs a payload as App Store data signed with this chain.
    ///
    /// - Parameter payload: The payload JSON bytes.
    /// - Returns: The compact JWS.
    /// - Throws: ``SignedDataError`` `.cryptoFailure` if OpenSSL fails to sign.
    public func sign(payload: Data) throws -> String {
        try signer.sign(payload: payload)
    }

    /// A verifier that trusts this chain's root.
    ///
    /// - Parameters:
    ///   - bundleId: Expected bundle id, or `nil` to accept any.
    ///   - appAppleId: The app's Apple id; required for `Production`.
    ///   - environment: `"Sandbox"`, `"Production"`, `"Xcode"` or `"LocalTesting"`.
    /// - Throws: ``SignedDataError`` `.invalidAppAppleId` for `Production` without `appAppleId`.
    public func verifier(bundleId: String?, appAppleId: Int64? = nil, environment: String) throws -> SignedDataVerifier {
        try SignedDataVerifier(rootCertificates: [root], bundleId: bundleId, appAppleId: appAppleId, environment: environment)
    }

    /// Whether a JWS's `x5c` chain ends with the simulator's root certificate (data this simulator signed, or
    /// one that copies its chain); `false` for anything that does not decode.
    public static func isSimulatorSigned(_ jws: String) -> Bool {
        guard let root = try? SimulatorPKI.default.root, let last = (try? JWS.decode(jws))?.header.x5c?.last else { return false }
        return last == root.base64EncodedDER
    }
}
