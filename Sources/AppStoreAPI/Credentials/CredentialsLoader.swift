import Foundation
import MatrixJSON

/// Loads ``AppStoreCredentials`` from a JSON file (`--credentials FILE`) or from environment variables.
///
/// Environment variables:
///
/// | variable | meaning |
/// |---|---|
/// | `APP_STORE_CONNECT_ISSUER_ID` | issuer id (required) |
/// | `APP_STORE_CONNECT_KEY_ID`, `APP_STORE_CONNECT_KEY_PATH` | App Store Connect API key id and `.p8` path |
/// | `APP_STORE_IN_APP_PURCHASE_KEY_ID`, `APP_STORE_IN_APP_PURCHASE_KEY_PATH` | In-App Purchase key (App Store Server API) |
/// | `APP_STORE_BUNDLE_ID` | the app's bundle id |
/// | `APP_STORE_APP_APPLE_ID` | the app's Apple id (verifying Production data) |
///
/// The JSON file has the same fields: `issuerId`, `keyId`, `keyPath`, an optional
/// `inAppPurchaseKey: {"keyId", "keyPath"}`, `bundleId` and `appAppleId`; a relative `keyPath` is relative to
/// the file. The file and every key must lie outside git work trees (``RepositoryGuard``).
public enum CredentialsLoader {
    /// `APP_STORE_CONNECT_ISSUER_ID`.
    public static let issuerIdVariable = "APP_STORE_CONNECT_ISSUER_ID"
    /// `APP_STORE_CONNECT_KEY_ID`.
    public static let keyIdVariable = "APP_STORE_CONNECT_KEY_ID"
    /// `APP_STORE_CONNECT_KEY_PATH`.
    public static let keyPathVariable = "APP_STORE_CONNECT_KEY_PATH"
    /// `APP_STORE_IN_APP_PURCHASE_KEY_ID`.
    public static let inAppPurchaseKeyIdVariable = "APP_STORE_IN_APP_PURCHASE_KEY_ID"
    /// `APP_STORE_IN_APP_PURCHASE_KEY_PATH`.
    public static let inAppPurchaseKeyPathVariable = "APP_STORE_IN_APP_PURCHASE_KEY_PATH"
    /// `APP_STORE_BUNDLE_ID`.
    public static let bundleIdVariable = "APP_STORE_BUNDLE_ID"
    /// `APP_STORE_APP_APPLE_ID`.
    public static let appAppleIdVariable = "APP_STORE_APP_APPLE_ID"

    /// Loads from `file` when given, else from `environment`.
    ///
    /// - Throws: ``CredentialsError``: `.missing` when neither is configured, and the errors of
    ///   ``load(file:guard:)`` and ``load(environment:guard:)``.
    public static func load(file: String?, environment: [String: String], guard repository: RepositoryGuard) throws(CredentialsError) -> AppStoreCredentials {
        if let file { return try load(file: file, guard: repository) }
        let names = [issuerIdVariable, keyIdVariable, keyPathVariable, inAppPurchaseKeyIdVariable, inAppPurchaseKeyPathVariable]
        guard names.contains(where: { !(environment[$0] ?? "").isEmpty }) else {
            throw CredentialsError(.missing, "no App Store Connect credentials: pass --credentials FILE (a JSON file outside the repository) "
                + "or set \(issuerIdVariable), \(keyIdVariable) and \(keyPathVariable); see docs/app-store-api.md")
        }
        return try load(environment: environment, guard: repository)
    }

    /// Loads from environment variables.
    ///
    /// - Throws: ``CredentialsError`` `.invalid` naming a missing or malformed variable; the errors of
    ///   ``PrivateFile/read(_:what:guard:)`` for the key files.
    public static func load(environment: [String: String], guard repository: RepositoryGuard) throws(CredentialsError) -> AppStoreCredentials {
        func value(_ name: String) -> String? {
            environment[name].flatMap { $0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : $0 }
        }
        guard let issuerId = value(issuerIdVariable) else {
            throw CredentialsError(.invalid, "\(issuerIdVariable) is not set; copy the issuer id from App Store Connect (Users and Access → Integrations)")
        }
        let connectKey = try key(id: value(keyIdVariable), path: value(keyPathVariable),
                                 idName: keyIdVariable, pathName: keyPathVariable, relativeTo: nil, guard: repository)
        let inAppPurchaseKey = try key(id: value(inAppPurchaseKeyIdVariable), path: value(inAppPurchaseKeyPathVariable),
                                       idName: inAppPurchaseKeyIdVariable, pathName: inAppPurchaseKeyPathVariable, relativeTo: nil, guard: repository)
        var appAppleId: Int64?
        if let text = value(appAppleIdVariable) {
            guard let number = Int64(text), number > 0 else {
                throw CredentialsError(.invalid, "\(appAppleIdVariable) must be the app's numeric Apple id")
            }
            appAppleId = number
        }
        guard connectKey != nil || inAppPurchaseKey != nil else {
            throw CredentialsError(.invalid, "\(keyIdVariable) and \(keyPathVariable) are not set; give the key id and the path of the .p8 file")
        }
        return try AppStoreCredentials(issuerId: issuerId, connectKey: connectKey, inAppPurchaseKey: inAppPurchaseKey,
                                       bundleId: value(bundleIdVariable), appAppleId: appAppleId)
    }

    /// Loads from a JSON credentials file.
    ///
    /// - Throws: ``CredentialsError``: `.insideRepository` or `.unreadable` for the file or a key file;
    ///   `.invalid` with located diagnostics for malformed JSON, a missing or mistyped field.
    public static func load(file: String, guard repository: RepositoryGuard) throws(CredentialsError) -> AppStoreCredentials {
        let (resolved, bytes) = try PrivateFile.read(file, what: "credentials file", guard: repository)
        let sink = DiagnosticCollector(file: file)
        let read = JSONReader.read(bytes, file: file)
        sink.append(contentsOf: read.diagnostics)
        guard let root = read.value else {
            throw CredentialsError(.invalid, "\(file) is not valid JSON", diagnostics: sink.diagnostics)
        }
        var fields = ObjectFields(JSONField(root, pointer: ""), sink)
        let issuerId = fields.required("issuerId", "the issuer id from App Store Connect").flatMap { $0.string(sink) }
        let keyId = fields.optional("keyId")?.string(sink)
        let keyPath = fields.optional("keyPath")?.string(sink)
        var inAppPurchase: (id: String?, path: String?)?
        if let nested = fields.optional("inAppPurchaseKey") {
            var keyFields = ObjectFields(nested, sink)
            inAppPurchase = (keyFields.required("keyId").flatMap { $0.string(sink) }, keyFields.required("keyPath").flatMap { $0.string(sink) })
            keyFields.finish()
        }
        let bundleId = fields.optional("bundleId")?.string(sink)
        let appAppleId = fields.optional("appAppleId")?.int(sink, in: 1...Int.max)
        if fields.isObject, keyId == nil, keyPath == nil, inAppPurchase == nil {
            sink.error(.missingField, "missing required field \"keyId\" and \"keyPath\" (the App Store Connect API key) or \"inAppPurchaseKey\"",
                       pointer: "", at: root.location)
        }
        fields.finish()
        guard !sink.hasErrors, let issuerId else {
            throw CredentialsError(.invalid, "\(file) is not a valid credentials file", diagnostics: sink.diagnostics)
        }
        let directory = (resolved as NSString).deletingLastPathComponent
        let connectKey = try key(id: keyId, path: keyPath, idName: "keyId", pathName: "keyPath", relativeTo: directory, guard: repository)
        let inAppPurchaseKey = try inAppPurchase.flatMap { (id, path) throws(CredentialsError) in
            try key(id: id, path: path, idName: "inAppPurchaseKey.keyId", pathName: "inAppPurchaseKey.keyPath", relativeTo: directory, guard: repository)
        }
        return try AppStoreCredentials(issuerId: issuerId, connectKey: connectKey, inAppPurchaseKey: inAppPurchaseKey,
                                       bundleId: bundleId, appAppleId: appAppleId.map(Int64.init))
    }

    /// Reads one key when both its id and path are given; `nil` when neither is.
    private static func key(id: String?, path: String?, idName: String, pathName: String, relativeTo directory: String?,
                            guard repository: RepositoryGuard) throws(CredentialsError) -> APIKey? {
        switch (id, path) {
        case (nil, nil):
            return nil
        case (nil, _?):
            throw CredentialsError(.invalid, "\(pathName) is set but \(idName) is not; give the key id shown next to the key in App Store Connect")
        case (_?, nil):
            throw CredentialsError(.invalid, "\(idName) is set but \(pathName) is not; give the path of the key's .p8 file")
        case let (id?, path?):
            var full = (path as NSString).expandingTildeInPath
            if let directory, !full.hasPrefix("/") { full = (directory as NSString).appendingPathComponent(full) }
            let (resolved, bytes) = try PrivateFile.read(full, what: "private key", guard: repository)
            return try APIKey(keyId: id, pemRepresentation: String(decoding: bytes, as: UTF8.self), source: resolved)
        }
    }
}
