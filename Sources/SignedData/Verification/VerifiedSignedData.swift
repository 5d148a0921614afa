import Foundation
import Signing

/// The outcome of a successful ``SignedDataVerifier`` call: the raw payload plus the fields that were checked.
///
/// Full typed payload models live elsewhere; decode ``payload`` with them.
public struct VerifiedSignedData: Sendable {
    /// Which App Store object the JWS carries.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A `signedTransaction` (JWSTransactionDecodedPayload).
        case transaction
        /// A `signedRenewalInfo` (JWSRenewalInfoDecodedPayload).
        case renewalInfo
        /// An App Store Server Notification V2 `signedPayload` (ResponseBodyV2DecodedPayload).
        case notification
        /// A signed AppTransaction.
        case appTransaction
    }

    /// Whether, and how, the signature was checked.
    public enum SignatureCheck: Sendable, Hashable, CustomStringConvertible {
        /// The chain verified at `validationDate` to a configured root, both marker OIDs were present and
        /// the ES256 signature verified with the leaf key. `chain` is leaf, intermediate, root.
        case verified(chain: [X509Certificate], validationDate: Date)
        /// Nothing cryptographic was checked because the verifier's environment is `Xcode` or
        /// `LocalTesting`, as in Apple's libraries; only the environment and bundle id were compared.
        case notChecked(environment: String)

        /// A sentence for reports.
        public var description: String {
            switch self {
            case let .verified(chain, validationDate):
                let root = chain.last?.subjectSummary ?? "?"
                return "signature and chain verified at \(ISO8601DateFormatter().string(from: validationDate)) to \(root)"
            case let .notChecked(environment):
                return "signature NOT checked: the verifier environment is \(environment), for which App Store data is not signed by Apple"
            }
        }
    }

    /// The kind that was verified.
    public var kind: Kind
    /// The payload JSON bytes exactly as signed.
    public var payload: Data
    /// The decoded JWS header.
    public var header: JWSHeader
    /// The fields that were compared with the verifier's configuration.
    public var fields: CheckedFields
    /// What the signature check did.
    public var signatureCheck: SignatureCheck

    /// `true` when the chain and signature were verified, `false` when they were skipped.
    public var isSignatureVerified: Bool {
        if case .verified = signatureCheck { return true }
        return false
    }
}

/// The payload fields a ``SignedDataVerifier`` reads; `nil` when absent.
public struct CheckedFields: Sendable, Hashable {
    /// `signedDate` in milliseconds since 1970 (fractional for StoreKit Testing in Xcode); for an app
    /// transaction, its `receiptCreationDate`.
    public var signedDate: Double?
    /// `bundleId` (for a notification, from `data`, `summary` or `externalPurchaseToken`).
    public var bundleId: String?
    /// `environment` (for an app transaction, its `receiptType`; for an external purchase token
    /// notification, `Sandbox` when `externalPurchaseId` starts with `SANDBOX`, else `Production`).
    public var environment: String?
    /// `appAppleId` (notifications and app transactions).
    public var appAppleId: Int64?
    /// `notificationType` (notifications only).
    public var notificationType: String?
    /// `subtype` (notifications only).
    public var subtype: String?

    /// Creates a set of fields.
    public init(
        signedDate: Double? = nil,
        bundleId: String? = nil,
        environment: String? = nil,
        appAppleId: Int64? = nil,
        notificationType: String? = nil,
        subtype: String? = nil
    ) {
        self.signedDate = signedDate
        self.bundleId = bundleId
        self.environment = environment
        self.appAppleId = appAppleId
        self.notificationType = notificationType
        self.subtype = subtype
    }

    /// `signedDate` as a `Date`, when present.
    public var signedDateValue: Date? {
        signedDate.map { Date(timeIntervalSince1970: $0 / 1000) }
    }
}
