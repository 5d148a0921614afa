import Foundation

/// The signing half of the StoreKit Matrix simulator PKI: the leaf's private key and the `x5c` chain (leaf,
/// intermediate, root) that every JWS the embedded App Store signs carries.
///
/// Minted once by `scripts/mint-simulator-pki.sh` (root "StoreKit Matrix Simulator Root CA (NOT Apple)", valid
/// 2020-01-01 .. 9999-12-31). The leaf key is public test material: data it signs proves nothing, and no verifier
/// configured with Apple's roots accepts it. Reading the certificates themselves is `SimulatorPKI`'s job
/// (`SignedData`); signing needs only their bytes.
public enum SimulatorSigningChain {
    /// The `x5c` header entries: the standard base64 of each certificate's DER, leaf first.
    public static let x5c: [String] = [leafPEM, intermediatePEM, rootPEM].map(base64DER(ofPEM:))

    /// A signer with header `{"alg":"ES256","x5c":[leaf, intermediate, root]}`.
    ///
    /// - Throws: ``SignedDataError`` `.invalidKey` only if the embedded key was damaged.
    public static var signer: JWSSigner {
        get throws {
            try signerResult.get()
        }
    }

    private static let signerResult: Result<JWSSigner, SignedDataError> = {
        do {
            return .success(JWSSigner(key: try P256PrivateKey(pemRepresentation: leafKeyPEM), x5c: x5c))
        } catch let error as SignedDataError {
            return .failure(error)
        } catch {
            return .failure(SignedDataError(.invalidKey, "The embedded simulator key could not be loaded; re-run scripts/mint-simulator-pki.sh --force."))
        }
    }()

    /// The base64 body of a PEM block, its lines joined: the standard base64 of the DER it armours.
    package static func base64DER(ofPEM pem: String) -> String {
        pem.split(whereSeparator: \.isNewline)
            .filter { !$0.hasPrefix("-----") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .joined()
    }
}
