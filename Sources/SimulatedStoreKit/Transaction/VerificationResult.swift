import Foundation
import StoreSimulator
import Threading

/// The result of StoreKit's verification of signed data: verified, or unverified with the reason.
///
/// Data the simulated App Store signs is handed out verified: its `jwsRepresentation` is the simulator's ES256
/// JWS, which `matrix verify` and Apple's own libraries accept with the simulator root. A verification failure
/// set up by the runner (``StoreKitFailure/verification(_:)``) hands it out unverified, with that error.
/// Apple: https://developer.apple.com/documentation/storekit/verificationresult
public enum VerificationResult<SignedType: Sendable>: Sendable {
    case unverified(SignedType, VerificationError)
    case verified(SignedType)

    /// Why StoreKit could not verify the data.
    /// Apple: https://developer.apple.com/documentation/storekit/verificationresult/verificationerror
    public enum VerificationError: Error, Hashable, Sendable, CaseIterable {
        case revokedCertificate
        case invalidCertificateChain
        case invalidDeviceVerification
        case invalidEncoding
        case invalidSignature
        case missingRequiredProperties
    }

    /// The data, when it was verified.
    ///
    /// - Throws: the ``VerificationError`` when it was not.
    public var payloadValue: SignedType {
        get throws {
            switch self {
            case .verified(let value): return value
            case .unverified(_, let error): throw error
            }
        }
    }

    /// The data, verified or not.
    public var unsafePayloadValue: SignedType {
        switch self {
        case .verified(let value), .unverified(let value, _): value
        }
    }

    /// The compact JWS the data came in.
    public var jwsRepresentation: String {
        (unsafePayloadValue as? any SignedValue)?.signed.jws ?? ""
    }

    /// When the data was signed.
    public var signedDate: Date {
        (unsafePayloadValue as? any SignedValue)?.signedDate ?? Date(timeIntervalSince1970: 0)
    }
}

extension VerificationResult: Equatable where SignedType: Equatable {}
extension VerificationResult: Hashable where SignedType: Hashable {}

/// Data the App Store signs: a transaction or a subscription's renewal info.
protocol SignedValue: Sendable {
    /// When it was signed.
    var signedDate: Date { get }
    /// Its signed form.
    var signed: SignedPayload { get }
}

extension Transaction: SignedValue {}

/// A payload and its compact JWS: the payload encoded, and then signed, the first time each is asked for.
final class SignedPayload: Sendable, Hashable {
    private let encode: @Sendable () -> [UInt8]
    private let signer: (any PayloadSigner)?
    private let encoded = Locked<[UInt8]?>(nil)
    private let cached = Locked<String?>(nil)

    convenience init(_ payload: [UInt8], signer: (any PayloadSigner)?) {
        self.init(signer: signer) { payload }
    }

    /// - Parameter encode: makes the payload's bytes; called at most once per value that is kept (the same bytes
    ///   every time: it encodes a snapshot).
    init(signer: (any PayloadSigner)?, encode: @escaping @Sendable () -> [UInt8]) {
        self.encode = encode
        self.signer = signer
    }

    /// The payload's bytes, UTF-8 JSON.
    var payload: [UInt8] {
        Self.once(encoded, encode)
    }

    /// The compact JWS; an unsigned JWS (`alg` none) when the store signs nothing or signing failed, which no
    /// verifier accepts.
    var jws: String {
        Self.once(cached) {
            let payload = payload
            return (try? signer?.sign(Data(payload))) ?? Self.unsigned(payload)
        }
    }

    /// What `cache` holds, or what `make` makes, kept there: made outside the lock, the first one kept wins.
    private static func once<Value: Sendable>(_ cache: Locked<Value?>, _ make: () -> Value) -> Value {
        if let value = cache.withLock({ $0 }) { return value }
        let made = make()
        return cache.withLock { stored in
            if stored == nil { stored = made }
            return stored ?? made
        }
    }

    /// `{"alg":"none"}.payload.` in base64url: what code that reads `jwsRepresentation` gets when nothing signs.
    static func unsigned(_ payload: [UInt8]) -> String {
        func base64URL(_ bytes: [UInt8]) -> String {
            Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        return base64URL(Array(#"{"alg":"none"}"#.utf8)) + "." + base64URL(payload) + "."
    }

    static func == (lhs: SignedPayload, rhs: SignedPayload) -> Bool { lhs.payload == rhs.payload }
    func hash(into hasher: inout Hasher) { hasher.combine(payload) }
}
