import AppStoreModels
import Foundation
import SignedData
import Signing

/// A notification a correct server must refuse (`--signing-faults`), made from a genuine one. Each claims a
/// `REFUND` of the genuine notification's transaction (its `signedTransactionInfo` revoked) under a
/// `notificationUUID` of its own, so that a backend that accepts it both answers 2xx and, when it acts on it,
/// changes the access it grants.
///
/// Apple's verifiers refuse each: the chain must end at the trusted root and carry Apple's marker OIDs, the
/// payload's `bundleId` and `environment` must be the app's, and the signature must cover the payload.
/// Apple: https://developer.apple.com/documentation/appstoreservernotifications/responding-to-app-store-server-notifications
enum SigningFault: String, CaseIterable, Sendable {
    /// Signed by Apple's library test chain (testLeaf ← testIntermediate ← testCA), which the backend does not trust.
    case wrongChain
    /// Signed by a leaf without Apple's leaf marker OID (1.2.840.113635.100.6.11.1). The runner cannot issue a
    /// certificate under the simulator intermediate (its key is not kept), so this leaf is the test PKI's and the
    /// chain is also untrusted: the fault shows that the backend refuses it, not that its OID check alone does.
    case missingMarkerOID
    /// Signed by the simulator chain, `data.bundleId` another app's.
    case wrongBundleId
    /// Signed by the simulator chain, `data.environment` the other of Sandbox and Production.
    case wrongEnvironment
    /// The genuine signature over a payload that was changed after signing (the transaction inside is validly signed).
    case alteredPayload

    /// The faulted copy of `genuine`.
    /// - Throws: when the genuine payload does not decode or signing fails.
    func apply(to genuine: OutgoingNotification, pki: SimulatorPKI, faultPKI: FaultPKI) throws -> OutgoingNotification {
        var body = try JSONDecoder().decode(ResponseBodyV2DecodedPayload.self, from: JWS.decodePayload(genuine.signedPayload))
        var parts = genuine.notificationUUID.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        let number = (Self.allCases.firstIndex(of: self) ?? 0) + 1
        if parts.count == 5 { parts[3] = String(format: "f%03x", number) }
        let uuid = parts.joined(separator: "-")
        body.notificationUUID = uuid
        body.notificationType = "REFUND"
        body.subtype = nil
        // The transaction inside claims the refund too (revoked at the notification's time), signed as the outer
        // payload is, so that a backend that acts on the data, not on the type, changes its access.
        var transaction: JWSTransactionDecodedPayload?
        if let nested = body.data?.signedTransactionInfo {
            var decoded = try JSONDecoder().decode(JWSTransactionDecodedPayload.self, from: JWS.decodePayload(nested))
            decoded.revocationDate = body.signedDate
            decoded.revocationReason = 0
            transaction = decoded
        }
        let sign: (Data) throws -> String
        switch self {
        case .wrongChain:
            sign = { try JWS.sign(payload: $0, x5c: [faultPKI.leaf, faultPKI.intermediate, faultPKI.root], key: faultPKI.key) }
        case .missingMarkerOID:
            sign = { try JWS.sign(payload: $0, x5c: [faultPKI.leafWithoutMarker, faultPKI.intermediate, faultPKI.root], key: faultPKI.key) }
        case .wrongBundleId:
            let bundleId = (body.data?.bundleId ?? "app") + ".forged"
            body.data?.bundleId = bundleId
            transaction?.bundleId = bundleId
            sign = { try pki.sign(payload: $0) }
        case .wrongEnvironment:
            let environment = body.data?.environment == "Production" ? "Sandbox" : "Production"
            body.data?.environment = environment
            transaction?.environment = environment
            sign = { try pki.sign(payload: $0) }
        case .alteredPayload:
            sign = { try pki.sign(payload: $0) }
        }
        if let transaction { body.data?.signedTransactionInfo = try sign(Data(transaction.compactJSON)) }
        let jws: String
        if self == .alteredPayload {
            // The genuine signature over the changed payload.
            let genuineParts = genuine.signedPayload.split(separator: ".", omittingEmptySubsequences: false)
            guard genuineParts.count == 3 else { throw SignedDataError(.invalidJWTFormat, "the genuine notification is not a compact JWS") }
            jws = "\(genuineParts[0]).\(Base64URL.encode(body.compactJSON)).\(genuineParts[2])"
        } else {
            jws = try sign(Data(body.compactJSON))
        }
        var faulted = genuine
        faulted.notificationUUID = uuid
        faulted.notificationType = "REFUND"
        faulted.subtype = nil
        faulted.origin = "signingFault"
        faulted.fault = rawValue
        faulted.signedPayload = jws
        return faulted
    }
}
