import Foundation
import Signing

/// Verifies and decodes App Store signed data (JWS) the way Apple's App Store Server Library
/// `SignedDataVerifier` does, with online (OCSP) checks off.
///
/// For `Sandbox` and `Production` verifiers, in this order:
/// 1. the JWS has three base64url parts, a JSON header and a JSON payload (`INVALID_JWT_FORMAT`);
/// 2. the header names `alg` `ES256` and carries exactly three `x5c` certificates (`INVALID_JWT_FORMAT`);
///    `x5c[0]` and `x5c[1]` decode (`INVALID_CERTIFICATE`); `x5c[2]` is not used, as in Apple's libraries;
/// 3. leaf → intermediate → one of ``rootCertificates`` verifies at the payload's `signedDate`
///    (`receiptCreationDate` for an app transaction; the current time when absent), the leaf carries
///    1.2.840.113635.100.6.11.1 and the intermediate 1.2.840.113635.100.6.2.1, and the ES256 signature
///    verifies with the leaf key (`VERIFICATION_FAILURE`);
/// 4. bundle id and app Apple id (`INVALID_APP_IDENTIFIER`), then environment (`INVALID_ENVIRONMENT`),
///    per kind as listed on each method.
///
/// A chain that verified is remembered by its exact `x5c` bytes with its validity interval (see
/// ``chainCacheCapacity``), so later JWS with the same chain skip the CA signature checks of step 3 but not
/// the marker OIDs or their own signature.
///
/// For `Xcode` and `LocalTesting` verifiers steps 2 and 3 are skipped, as in Apple's libraries (that data
/// is not signed by Apple); the result says so in ``VerifiedSignedData/signatureCheck``. That is the caller's
/// choice, made when it creates the verifier: nothing in the data can turn the checks off. A verifier created
/// with `signatureRequired` keeps steps 2 and 3 for those environments too.
///
/// Where Apple's libraries disagree on the code: a missing `x5c`, a non-ES256 `alg` or a chain of other
/// than three certificates is `INVALID_JWT_FORMAT` (Apple's Swift library; Python and Java say
/// `VERIFICATION_FAILURE`, Python `INVALID_CHAIN_LENGTH` for the count); a certificate that is base64 but
/// not DER is `INVALID_CERTIFICATE` (as Python; Swift folds it into `INVALID_JWT_FORMAT`); a signature that
/// does not verify is `VERIFICATION_FAILURE` (as Python, Java and Node).
///
/// See <https://developer.apple.com/documentation/appstoreserverapi/jwstransaction> and
/// <https://developer.apple.com/documentation/appstoreservernotifications/signedpayload>.
public struct SignedDataVerifier: Sendable {
    /// Leaf marker extension of App Store receipt-signing certificates.
    public static let leafMarkerOID = "1.2.840.113635.100.6.11.1"
    /// Marker extension of the Apple Worldwide Developer Relations intermediate.
    public static let intermediateMarkerOID = "1.2.840.113635.100.6.2.1"
    /// Verifier environments whose data is decoded without any signature or chain check.
    public static let unsignedEnvironments: Set<String> = ["Xcode", "LocalTesting"]

    /// The trust anchors.
    public let rootCertificates: [X509Certificate]
    /// The expected bundle id; `nil` skips the bundle id comparison (Apple's libraries always compare).
    public let bundleId: String?
    /// The app's Apple id; required for `Production`, compared for notifications and app transactions there.
    public let appAppleId: Int64?
    /// `"Sandbox"`, `"Production"`, `"Xcode"` or `"LocalTesting"` (Apple's raw values).
    public let environment: String
    /// Whether chains are also held to OpenSSL's X509_STRICT rules, as Apple's Python library does.
    public let strictCertificateChecks: Bool
    /// The most verified chains remembered (see ``VerifiedChainCache``); `0` turns the cache off.
    public let chainCacheCapacity: Int
    /// Whether `Xcode` and `LocalTesting` data must pass the chain and signature checks as well (Apple's
    /// libraries skip them there); `Sandbox` and `Production` data always must.
    public let signatureRequired: Bool
    let now: @Sendable () -> Date
    let chainCache: VerifiedChainCache

    /// Creates a verifier.
    ///
    /// - Parameters:
    ///   - rootCertificates: Trust anchors, e.g. ``AppleRootCertificates/rootCAG3`` or
    ///     ``SimulatorPKI/root``.
    ///   - bundleId: Expected bundle id, or `nil` to accept any.
    ///   - appAppleId: The app's Apple id; must be set when `environment` is `Production`.
    ///   - environment: `"Sandbox"`, `"Production"`, `"Xcode"` or `"LocalTesting"`.
    ///   - signatureRequired: Check the chain and signature of `Xcode` and `LocalTesting` data too, e.g. when
    ///     the environment was read from the data or a run's records rather than chosen by the person
    ///     verifying, or when a test PKI signs data of those environments. Default `false`, as in Apple's
    ///     libraries.
    ///   - strictCertificateChecks: Apply OpenSSL's X509_STRICT rules to the chain (Apple's Python library
    ///     default; its Swift, Java and Node libraries do not, and Apple's own test certificates fail them).
    ///   - chainCacheCapacity: How many verified chains to remember, default 64. A JWS whose `x5c`
    ///     certificates match a remembered chain byte for byte, with a validation time inside the chain's
    ///     validity interval, skips the chain check; its signature and marker OIDs are still checked. `0`
    ///     checks every chain in full. The cache is shared by copies of this verifier and is thread-safe.
    ///   - now: The clock used when a payload has no signed date.
    /// - Throws: ``SignedDataError`` `.invalidAppAppleId` for a `Production` verifier without `appAppleId`.
    public init(
        rootCertificates: [X509Certificate],
        bundleId: String?,
        appAppleId: Int64?,
        environment: String,
        signatureRequired: Bool = false,
        strictCertificateChecks: Bool = false,
        chainCacheCapacity: Int = 64,
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        if environment == "Production", appAppleId == nil {
            throw SignedDataError(.invalidAppAppleId, "A Production verifier needs the app's Apple id (appAppleId); pass the id shown in App Store Connect.")
        }
        self.rootCertificates = rootCertificates
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.environment = environment
        self.signatureRequired = signatureRequired
        self.strictCertificateChecks = strictCertificateChecks
        self.chainCacheCapacity = max(0, chainCacheCapacity)
        self.chainCache = VerifiedChainCache(capacity: chainCacheCapacity)
        self.now = now
    }

    /// Verifies a `signedTransaction`; compares `bundleId` then `environment`.
    ///
    /// - Throws: ``SignedDataError`` with the codes listed on ``SignedDataVerifier``.
    public func verifyAndDecodeTransaction(_ jws: String) throws -> VerifiedSignedData {
        let result = try verifyAndDecode(jws, as: .transaction)
        try checkAppIdentifier(result.fields, includingAppAppleId: false)
        try checkEnvironment(result.fields.environment)
        return result
    }

    /// Verifies a `signedRenewalInfo`; compares `environment` only (renewal info has no bundle id).
    ///
    /// - Throws: ``SignedDataError`` with the codes listed on ``SignedDataVerifier``.
    public func verifyAndDecodeRenewalInfo(_ jws: String) throws -> VerifiedSignedData {
        let result = try verifyAndDecode(jws, as: .renewalInfo)
        try checkEnvironment(result.fields.environment)
        return result
    }

    /// Verifies a notification `signedPayload`; compares `bundleId` (and, for `Production`, `appAppleId`)
    /// then `environment`, taken from `data`, else `summary`, else `externalPurchaseToken`.
    ///
    /// - Throws: ``SignedDataError`` with the codes listed on ``SignedDataVerifier``.
    public func verifyAndDecodeNotification(_ jws: String) throws -> VerifiedSignedData {
        let result = try verifyAndDecode(jws, as: .notification)
        try checkAppIdentifier(result.fields, includingAppAppleId: true)
        try checkEnvironment(result.fields.environment)
        return result
    }

    /// Verifies a signed AppTransaction; compares `bundleId` (and, for `Production`, `appAppleId`) then
    /// `receiptType` as the environment. The chain is evaluated at `receiptCreationDate`.
    ///
    /// - Throws: ``SignedDataError`` with the codes listed on ``SignedDataVerifier``.
    public func verifyAndDecodeAppTransaction(_ jws: String) throws -> VerifiedSignedData {
        let result = try verifyAndDecode(jws, as: .appTransaction)
        try checkAppIdentifier(result.fields, includingAppAppleId: true)
        try checkEnvironment(result.fields.environment)
        return result
    }

    /// Verifies a JWS of the given kind with that kind's checks.
    ///
    /// - Throws: ``SignedDataError`` with the codes listed on ``SignedDataVerifier``.
    public func verifyAndDecode(_ jws: String, kind: VerifiedSignedData.Kind) throws -> VerifiedSignedData {
        switch kind {
        case .transaction: try verifyAndDecodeTransaction(jws)
        case .renewalInfo: try verifyAndDecodeRenewalInfo(jws)
        case .notification: try verifyAndDecodeNotification(jws)
        case .appTransaction: try verifyAndDecodeAppTransaction(jws)
        }
    }

    // MARK: - Steps

    /// Steps 1–3: decode, and unless this verifier was created for unsigned data, check header, chain, OIDs and
    /// signature. Only the verifier's own configuration decides; the payload's environment is compared in step 4.
    private func verifyAndDecode(_ jws: String, as kind: VerifiedSignedData.Kind) throws -> VerifiedSignedData {
        let decoded = try JWS.decode(jws)
        let fields = try PayloadFields.read(decoded.payload, kind: kind)
        if !signatureRequired, Self.unsignedEnvironments.contains(environment) {
            return VerifiedSignedData(
                kind: kind,
                payload: decoded.payload,
                header: decoded.header,
                fields: fields,
                signatureCheck: .notChecked(environment: environment)
            )
        }

        guard let x5c = decoded.header.x5c else {
            throw SignedDataError(.invalidJWTFormat, "The JWS header has no x5c certificate chain; App Store data carries leaf, intermediate and root there.")
        }
        guard decoded.header.alg == "ES256" else {
            throw SignedDataError(.invalidJWTFormat, "The JWS header alg is \(decoded.header.alg.map { "\"\($0)\"" } ?? "missing"); App Store data is signed with ES256 only.")
        }
        guard x5c.count == 3 else {
            throw SignedDataError(.invalidJWTFormat, "The JWS header x5c holds \(x5c.count) certificate(s); App Store data carries exactly three (leaf, intermediate, root).")
        }
        let validationDate = fields.signedDateValue ?? now()
        let chain = try verifiedChain(x5c: x5c, at: validationDate)
        guard chain.certificates[0].hasExtension(oid: Self.leafMarkerOID) else {
            throw SignedDataError(.verificationFailure, "The leaf certificate (\(chain.certificates[0].subjectSummary)) lacks the App Store receipt-signing marker extension \(Self.leafMarkerOID).")
        }
        guard chain.certificates[1].hasExtension(oid: Self.intermediateMarkerOID) else {
            throw SignedDataError(.verificationFailure, "The intermediate certificate (\(chain.certificates[1].subjectSummary)) lacks the Apple WWDR marker extension \(Self.intermediateMarkerOID).")
        }
        let leafKey = try chain.leafKey.get()
        guard decoded.signature.count == ECDSASignature.rawLength else {
            throw SignedDataError(.verificationFailure, "The JWS signature is \(decoded.signature.count) bytes; ES256 signatures are 64 bytes (r‖s), not DER.")
        }
        guard leafKey.isValidSignature(decoded.signature, for: Array(decoded.signingInput.utf8)) else {
            throw SignedDataError(.verificationFailure, "The JWS signature does not verify with the leaf certificate's key; the header or payload was altered or signed with another key.")
        }
        return VerifiedSignedData(
            kind: kind,
            payload: decoded.payload,
            header: decoded.header,
            fields: fields,
            signatureCheck: .verified(chain: chain.certificates, validationDate: validationDate)
        )
    }

    /// Step 4a: bundle id, and for a Production verifier the app Apple id when the kind carries one.
    private func checkAppIdentifier(_ fields: CheckedFields, includingAppAppleId: Bool) throws {
        if let bundleId, bundleId != fields.bundleId {
            throw SignedDataError(.invalidAppIdentifier, "The payload's bundleId is \(Self.quoted(fields.bundleId)) but this verifier expects \(Self.quoted(bundleId)).")
        }
        if includingAppAppleId, environment == "Production", fields.appAppleId != appAppleId {
            throw SignedDataError(.invalidAppIdentifier, "The payload's appAppleId is \(fields.appAppleId.map(String.init) ?? "missing") but this Production verifier expects \(appAppleId.map(String.init) ?? "none").")
        }
    }

    /// Step 4b: environment.
    private func checkEnvironment(_ payloadEnvironment: String?) throws {
        guard payloadEnvironment == environment else {
            throw SignedDataError(.invalidEnvironment, "The payload's environment is \(Self.quoted(payloadEnvironment)) but this verifier is for \(Self.quoted(environment)); use a verifier for the environment that produced the data.")
        }
    }

    private static func quoted(_ value: String?) -> String {
        value.map { "\"\($0)\"" } ?? "missing"
    }
}
