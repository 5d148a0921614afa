import Foundation
import MatrixJSON
import Signing

extension VerifiedSignedData.Kind {
    /// Guesses what a JWS payload is from the members it has, for input that does not say.
    ///
    /// - A `notificationType` member: an App Store Server Notification V2 (`ResponseBodyV2DecodedPayload`).
    /// - A `receiptType` member: an `AppTransaction`.
    /// - `autoRenewStatus` or `renewalDate` without `transactionId`: renewal info
    ///   (`JWSRenewalInfoDecodedPayload`).
    /// - Any other JSON object: a transaction (`JWSTransactionDecodedPayload`).
    ///
    /// - Parameter payload: The payload JSON bytes of a JWS.
    /// - Returns: The kind, or `nil` when the payload is not a JSON object that names each member once.
    ///
    /// See <https://developer.apple.com/documentation/appstoreserverapi/jwstransactiondecodedpayload>,
    /// <https://developer.apple.com/documentation/appstoreserverapi/jwsrenewalinfodecodedpayload> and
    /// <https://developer.apple.com/documentation/appstoreservernotifications/responsebodyv2decodedpayload>.
    public static func detect(payload: Data) -> Self? {
        // A payload that repeats a member has no kind here; reading its fields then says why (``StrictJSON``).
        guard let object = (try? StrictJSON.parse(payload))?.objectValue else { return nil }
        let names = Set(object.keys)
        if names.contains("notificationType") { return .notification }
        if names.contains("receiptType") { return .appTransaction }
        if !names.contains("transactionId"), names.contains("autoRenewStatus") || names.contains("renewalDate") {
            return .renewalInfo
        }
        return .transaction
    }
}
