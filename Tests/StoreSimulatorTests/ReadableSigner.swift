import Foundation
import StoreSimulator

/// Signs by wrapping the payload in clear (`signed.<payload as text>`), so that tests can read what each JWS
/// says, nested ones included.
struct ReadableSigner: PayloadSigner {
    func sign(_ payload: Data) throws -> String {
        "signed." + String(decoding: payload, as: UTF8.self)
    }

    /// The JSON object a JWS made by this signer carries.
    static func object(_ jws: String) -> [String: Any]? {
        guard jws.hasPrefix("signed.") else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(jws.dropFirst("signed.".count).utf8)) as? [String: Any]
    }

    /// A notification's `data`, and the transaction and renewal info it embeds.
    static func notification(_ jws: String) -> (payload: [String: Any], transaction: [String: Any]?, renewalInfo: [String: Any]?)? {
        guard let payload = object(jws) else { return nil }
        let data = payload["data"] as? [String: Any]
        return (payload, (data?["signedTransactionInfo"] as? String).flatMap(object), (data?["signedRenewalInfo"] as? String).flatMap(object))
    }
}
