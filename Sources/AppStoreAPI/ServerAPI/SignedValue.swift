import AppStoreModels
import MatrixModel
import SignedData

/// A piece of App Store signed data that was verified, with its decoded payload and the original JWS.
///
/// Evidence keeps both: the JWS so anyone can verify it again later (`matrix verify`), the payload so that
/// reports can show its fields.
public struct SignedValue<Payload: Sendable & Hashable & Codable>: Sendable, Hashable {
    /// The compact JWS exactly as Apple sent it.
    public let jws: String
    /// The decoded payload; members the model does not know are ignored (they stay in ``jws``).
    public let payload: Payload
    /// What the JWS carries.
    public let kind: VerifiedSignedData.Kind
    /// How it was verified, as a sentence (chain, root, validation date).
    public let verification: String

    /// Creates a value; use ``SignedDataDecoder`` to make one from a JWS.
    public init(jws: String, payload: Payload, kind: VerifiedSignedData.Kind, verification: String) {
        self.jws = jws
        self.payload = payload
        self.kind = kind
        self.verification = verification
    }

    /// The JWS as an evidence item (`kind` is `transaction`, `renewalInfo` or `notification`).
    public var signedItem: SignedItem {
        SignedItem(kind: kind.rawValue, jws: jws)
    }
}

extension SignedValue: Encodable {
    private enum CodingKeys: String, CodingKey {
        case kind, jws, payload, verification
    }

    /// Encodes `kind`, `jws`, `payload` and `verification`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind.rawValue, forKey: .kind)
        try container.encode(jws, forKey: .jws)
        try container.encode(payload, forKey: .payload)
        try container.encode(verification, forKey: .verification)
    }
}

/// A verified `signedTransactionInfo`.
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/jwstransaction
public typealias SignedTransaction = SignedValue<JWSTransactionDecodedPayload>

/// A verified `signedRenewalInfo`.
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/jwsrenewalinfo
public typealias SignedRenewalInfo = SignedValue<JWSRenewalInfoDecodedPayload>

/// A verified App Store Server Notification V2 `signedPayload`.
/// Apple: https://developer.apple.com/documentation/appstoreservernotifications/signedpayload
public typealias SignedNotification = SignedValue<ResponseBodyV2DecodedPayload>
