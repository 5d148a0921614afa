import AppStoreModels
import Foundation
import MatrixModel
import SignedData
import Signing

/// Verifies App Store signed data with ``SignedDataVerifier`` and decodes the payload into MatrixCore's models.
///
/// By default the chain must end at Apple Root CA - G3; tests pass Apple's test root instead. Transactions
/// are checked against the bundle id and the environment; renewal info against the environment;
/// notifications against the bundle id, the environment and, in Production, the app's Apple id — as
/// Apple's App Store Server Library does.
///
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/jwstransaction
public struct SignedDataDecoder: Sendable {
    /// The verifier doing the checks.
    public let verifier: SignedDataVerifier

    /// A decoder for data of `environment` and `bundleId`.
    ///
    /// - Parameters:
    ///   - environment: Where the data comes from; its raw value is the verifier's environment.
    ///   - bundleId: The app's bundle id.
    ///   - appAppleId: The app's Apple id; required for Production.
    ///   - rootCertificates: Trust anchors; `nil` means Apple Root CA - G3.
    ///   - now: The clock used when a payload has no `signedDate`.
    /// - Throws: ``AppStoreAPIError`` `.configuration` for Production without `appAppleId`, or if the embedded
    ///   Apple root cannot be read.
    public init(environment: SignedEnvironment, bundleId: String, appAppleId: Int64?, rootCertificates: [X509Certificate]? = nil,
                now: @escaping @Sendable () -> Date = { Date() }) throws(AppStoreAPIError) {
        do {
            let roots = try rootCertificates ?? [AppleRootCertificates.rootCAG3]
            verifier = try SignedDataVerifier(rootCertificates: roots, bundleId: bundleId, appAppleId: appAppleId,
                                              environment: environment.rawValue, now: now)
        } catch let error as SignedDataError where error.code == .invalidAppAppleId {
            throw AppStoreAPIError(.configuration, "verifying Production signed data needs the app's Apple id; set appAppleId in the credentials "
                                   + "file or \(CredentialsLoader.appAppleIdVariable) (App Store Connect → App Information → Apple ID)")
        } catch {
            throw AppStoreAPIError(.configuration, "the trust anchors cannot be used: \(error)")
        }
    }

    /// Verifies and decodes a `signedTransactionInfo`.
    ///
    /// - Throws: ``AppStoreAPIError`` `.verificationFailed` with the verifier's code and reason.
    public func transaction(_ jws: String) throws(AppStoreAPIError) -> SignedTransaction {
        try decode(jws, kind: .transaction, as: JWSTransactionDecodedPayload.self)
    }

    /// Verifies and decodes a `signedRenewalInfo`.
    ///
    /// - Throws: ``AppStoreAPIError`` `.verificationFailed` with the verifier's code and reason.
    public func renewalInfo(_ jws: String) throws(AppStoreAPIError) -> SignedRenewalInfo {
        try decode(jws, kind: .renewalInfo, as: JWSRenewalInfoDecodedPayload.self)
    }

    /// Verifies and decodes a notification `signedPayload`.
    ///
    /// - Throws: ``AppStoreAPIError`` `.verificationFailed` with the verifier's code and reason.
    public func notification(_ jws: String) throws(AppStoreAPIError) -> SignedNotification {
        try decode(jws, kind: .notification, as: ResponseBodyV2DecodedPayload.self)
    }

    private func decode<Payload: Sendable & Hashable & Codable>(_ jws: String, kind: VerifiedSignedData.Kind, as type: Payload.Type) throws(AppStoreAPIError) -> SignedValue<Payload> {
        let verified: VerifiedSignedData
        do {
            verified = try verifier.verifyAndDecode(jws, kind: kind)
        } catch {
            throw AppStoreAPIError(.verificationFailed, "a signed \(kind.rawValue) in the answer did not verify: \(error); "
                                   + "check the environment (sandbox or production) and the bundle id, and that the answer comes from Apple")
        }
        do {
            let payload = try JSONDecoder().decode(Payload.self, from: verified.payload)
            return SignedValue(jws: jws, payload: payload, kind: kind, verification: verified.signatureCheck.description)
        } catch {
            throw AppStoreAPIError(.invalidResponse, "a signed \(kind.rawValue) verified but its payload does not decode (\(DecodingProblem.describe(error)))")
        }
    }
}

extension SignedEnvironment {
    /// Apple's App Store Server API base URL for the environment: `https://api.storekit.itunes.apple.com` for
    /// Production, `https://api.storekit-sandbox.itunes.apple.com` for Sandbox (and TestFlight); `nil` for Xcode
    /// and LocalTesting, which the App Store does not serve.
    /// Apple: https://developer.apple.com/documentation/appstoreserverapi
    public var serverAPIBaseURL: URL? {
        switch self {
        case .production: URL(string: "https://api.storekit.itunes.apple.com")
        case .sandbox: URL(string: "https://api.storekit-sandbox.itunes.apple.com")
        case .xcode, .localTesting: nil
        }
    }
}
