/// An error from signing, decoding or verifying App Store signed data.
///
/// The ``code`` uses the vocabulary of Apple's App Store Server Library (`VerificationError` /
/// `VerificationStatus`: `INVALID_JWT_FORMAT`, `INVALID_CERTIFICATE`, `VERIFICATION_FAILURE`,
/// `INVALID_APP_IDENTIFIER`, `INVALID_ENVIRONMENT`) where one applies, so evidence can be compared with
/// what Apple's verifiers report. The ``message`` is a sentence that says what failed and what to check;
/// ``detail`` carries lower-level text (OpenSSL's error queue or certificate-verification reason) when
/// there is some.
///
/// See <https://developer.apple.com/documentation/appstoreserverapi/jwstransaction>.
public struct SignedDataError: Error, Sendable, CustomStringConvertible {
    /// A stable, extensible error code; its raw value is Apple's SCREAMING_CASE name.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name, e.g. `"INVALID_JWT_FORMAT"`.
        public var rawValue: String

        /// Creates a code from its raw name.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The JWS is not three base64url parts, its header or payload is not the expected JSON, or the
        /// header lacks `x5c`, names another algorithm than ES256 or carries a number of certificates other
        /// than three (Apple's `INVALID_JWT_FORMAT`).
        public static let invalidJWTFormat = Code(rawValue: "INVALID_JWT_FORMAT")
        /// A certificate could not be decoded (Apple's `INVALID_CERTIFICATE`).
        public static let invalidCertificate = Code(rawValue: "INVALID_CERTIFICATE")
        /// The chain, a marker OID or the signature did not verify (Apple's `VERIFICATION_FAILURE`).
        public static let verificationFailure = Code(rawValue: "VERIFICATION_FAILURE")
        /// The bundle id or app Apple id differs from the verifier's (Apple's `INVALID_APP_IDENTIFIER`).
        public static let invalidAppIdentifier = Code(rawValue: "INVALID_APP_IDENTIFIER")
        /// The payload's environment differs from the verifier's (Apple's `INVALID_ENVIRONMENT`).
        public static let invalidEnvironment = Code(rawValue: "INVALID_ENVIRONMENT")
        /// A Production verifier was configured without an app Apple id (Apple's `INVALID_APP_APPLE_ID`).
        public static let invalidAppAppleId = Code(rawValue: "INVALID_APP_APPLE_ID")
        /// A key could not be loaded or has the wrong type or curve.
        public static let invalidKey = Code(rawValue: "INVALID_KEY")
        /// A signature has the wrong shape (raw ES256 signatures are exactly 64 bytes).
        public static let invalidSignature = Code(rawValue: "INVALID_SIGNATURE")
        /// OpenSSL failed an operation that should not fail (allocation, signing).
        public static let cryptoFailure = Code(rawValue: "CRYPTO_FAILURE")

        /// The raw name.
        public var description: String { rawValue }
    }

    /// What kind of failure this is.
    public var code: Code
    /// A sentence saying what failed and what to check.
    public var message: String
    /// Lower-level text, such as OpenSSL's reason, when available.
    public var detail: String?

    /// Creates an error.
    public init(_ code: Code, _ message: String, detail: String? = nil) {
        self.code = code
        self.message = message
        self.detail = detail.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `CODE: message (detail)`.
    public var description: String {
        if let detail {
            return "\(code.rawValue): \(message) (\(detail))"
        }
        return "\(code.rawValue): \(message)"
    }
}
