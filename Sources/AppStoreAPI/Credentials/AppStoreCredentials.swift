import Foundation
import SignedData
import Signing

/// A private API key downloaded from App Store Connect: its key id and the P-256 key read from the `.p8` file.
///
/// The key material never appears in ``description``, ``debugDescription`` or a `Mirror` (`dump`, `print`,
/// string interpolation); only the key id and the path it was read from do.
///
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/creating-api-keys-to-authorize-api-requests
public struct APIKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The key id App Store Connect shows next to the key (e.g. `2X9R4HXF34`); the JWT header's `kid`.
    public let keyId: String
    /// The signing key (PKCS#8 `-----BEGIN PRIVATE KEY-----`, EC P-256).
    public let privateKey: P256PrivateKey
    /// Where the key came from, for messages: a file path, or a short note for keys made in code.
    public let source: String

    /// Wraps a key that is already loaded.
    public init(keyId: String, privateKey: P256PrivateKey, source: String) {
        self.keyId = keyId
        self.privateKey = privateKey
        self.source = source
    }

    /// Reads a key from the text of a `.p8` file.
    ///
    /// - Throws: ``CredentialsError`` (`.invalid`) when the text holds no unencrypted P-256 private key; the
    ///   message names `source`, never the text.
    public init(keyId: String, pemRepresentation: String, source: String) throws(CredentialsError) {
        guard !keyId.isEmpty else {
            throw CredentialsError(.invalid, "the key id for \(source) is empty; copy it from App Store Connect (Users and Access → Integrations)")
        }
        do {
            privateKey = try P256PrivateKey(pemRepresentation: pemRepresentation)
        } catch {
            throw CredentialsError(.invalid, "\(source) does not hold an unencrypted P-256 private key (the .p8 file App Store Connect lets you download once)")
        }
        self.keyId = keyId
        self.source = source
    }

    /// `key KEYID (SOURCE)`, without key material.
    public var description: String { "key \(keyId) (\(source))" }

    /// Same as ``description``.
    public var debugDescription: String { description }

    /// A mirror that shows the key id and source only.
    public var customMirror: Mirror {
        Mirror(self, children: ["keyId": keyId, "source": source, "privateKey": "<redacted>"], displayStyle: .struct)
    }
}

/// What `matrix` needs to call Apple's APIs: the issuer id, one or two private keys, and the app.
///
/// Two kinds of key exist in App Store Connect: an **App Store Connect API** team key (Users and Access →
/// Integrations → App Store Connect API), used for sandbox testers, and an **In-App Purchase** key (… →
/// In-App Purchase), used for the App Store Server API. ``connectKey`` is the first; ``inAppPurchaseKey`` the
/// second. When only one key is configured it is used for both, and Apple answers HTTP 401 where it does not
/// fit. Both kinds share the team's issuer id.
///
/// The issuer id and the keys never appear in ``description``, ``debugDescription`` or a `Mirror`.
///
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/creating-api-keys-to-authorize-api-requests
/// and https://developer.apple.com/documentation/appstoreconnectapi/creating-api-keys-for-app-store-connect-api
public struct AppStoreCredentials: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The issuer id from App Store Connect (a UUID); the JWT's `iss` claim. Secret: never printed.
    public let issuerId: String
    /// The App Store Connect API key, used for the App Store Connect API (and for the App Store Server API
    /// when ``inAppPurchaseKey`` is absent).
    public let connectKey: APIKey?
    /// The In-App Purchase key, used for the App Store Server API.
    public let inAppPurchaseKey: APIKey?
    /// The app's bundle id, the App Store Server API JWT's `bid` claim; `nil` when not configured.
    public let bundleId: String?
    /// The app's Apple id (App Store Connect → App Information), needed to verify Production signed data.
    public let appAppleId: Int64?

    /// Creates credentials.
    ///
    /// - Throws: ``CredentialsError`` (`.invalid`) for an empty issuer id or when no key is given.
    public init(issuerId: String, connectKey: APIKey?, inAppPurchaseKey: APIKey? = nil, bundleId: String? = nil,
                appAppleId: Int64? = nil) throws(CredentialsError) {
        guard !issuerId.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw CredentialsError(.invalid, "the issuer id is empty; copy it from App Store Connect (Users and Access → Integrations)")
        }
        guard connectKey != nil || inAppPurchaseKey != nil else {
            throw CredentialsError(.invalid, "no private key is configured; give the key id and the path of the .p8 file")
        }
        self.issuerId = issuerId
        self.connectKey = connectKey
        self.inAppPurchaseKey = inAppPurchaseKey
        self.bundleId = bundleId
        self.appAppleId = appAppleId
    }

    /// The key for the App Store Server API: the In-App Purchase key, else the App Store Connect API key.
    public var serverAPIKey: APIKey? { inAppPurchaseKey ?? connectKey }

    /// The key for the App Store Connect API: the App Store Connect API key, else the In-App Purchase key.
    public var connectAPIKey: APIKey? { connectKey ?? inAppPurchaseKey }

    /// Text that must never reach a log, an error or evidence: the issuer id.
    ///
    /// Private keys are never held as text; tokens made from them are scrubbed by pattern (see ``Redaction``).
    public var secrets: [String] { [issuerId] }

    /// A one-line summary with the issuer id redacted and no key material.
    public var description: String {
        var parts = ["issuerId: <redacted>"]
        if let connectKey { parts.append("App Store Connect API \(connectKey)") }
        if let inAppPurchaseKey { parts.append("In-App Purchase \(inAppPurchaseKey)") }
        if let bundleId { parts.append("bundleId: \(bundleId)") }
        if let appAppleId { parts.append("appAppleId: \(appAppleId)") }
        return "AppStoreCredentials(" + parts.joined(separator: ", ") + ")"
    }

    /// Same as ``description``.
    public var debugDescription: String { description }

    /// A mirror without the issuer id or key material.
    public var customMirror: Mirror {
        Mirror(self, children: [
            "issuerId": "<redacted>",
            "connectKey": connectKey.map(\.description) ?? "none",
            "inAppPurchaseKey": inAppPurchaseKey.map(\.description) ?? "none",
            "bundleId": bundleId ?? "none",
            "appAppleId": appAppleId.map(String.init) ?? "none",
        ], displayStyle: .struct)
    }
}
