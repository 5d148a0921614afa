import Foundation

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
    /// - Returns: The kind, or `nil` when the payload is not a JSON object.
    ///
    /// See <https://developer.apple.com/documentation/appstoreserverapi/jwstransactiondecodedpayload>,
    /// <https://developer.apple.com/documentation/appstoreserverapi/jwsrenewalinfodecodedpayload> and
    /// <https://developer.apple.com/documentation/appstoreservernotifications/responsebodyv2decodedpayload>.
    public static func detect(payload: Data) -> Self? {
        guard let members = try? JSONDecoder().decode(MemberNames.self, from: payload) else { return nil }
        let names = members.names
        if names.contains("notificationType") { return .notification }
        if names.contains("receiptType") { return .appTransaction }
        if !names.contains("transactionId"), names.contains("autoRenewStatus") || names.contains("renewalDate") {
            return .renewalInfo
        }
        return .transaction
    }

    /// The member names of a JSON object, whatever their values.
    private struct MemberNames: Decodable {
        var names: Set<String>

        struct Name: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        init(from decoder: any Decoder) throws {
            names = Set(try decoder.container(keyedBy: Name.self).allKeys.map(\.stringValue))
        }
    }
}
