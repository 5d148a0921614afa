import Foundation
import MatrixJSON
import Signing

/// Reads the few payload members the verifier checks, per kind, and nothing else, so unrelated members
/// of any shape are tolerated; the payload as a whole must name each member once (``StrictJSON``). A checked member of the wrong JSON type is a format error, as in Apple's
/// Swift library, whose `Decodable` models fail on it.
enum PayloadFields {
    static func read(_ payload: Data, kind: VerifiedSignedData.Kind) throws -> CheckedFields {
        do throws(StrictJSONError) {
            switch kind {
            case .transaction:
                let body = try StrictJSON.decode(Transaction.self, from: payload)
                return CheckedFields(signedDate: body.signedDate, bundleId: body.bundleId, environment: body.environment)
            case .renewalInfo:
                let body = try StrictJSON.decode(RenewalInfo.self, from: payload)
                return CheckedFields(signedDate: body.signedDate, environment: body.environment)
            case .appTransaction:
                let body = try StrictJSON.decode(AppTransaction.self, from: payload)
                return CheckedFields(
                    signedDate: body.receiptCreationDate,
                    bundleId: body.bundleId,
                    environment: body.receiptType,
                    appAppleId: body.appAppleId
                )
            case .notification:
                let body = try StrictJSON.decode(Notification.self, from: payload)
                var fields = CheckedFields(signedDate: body.signedDate, notificationType: body.notificationType, subtype: body.subtype)
                if let data = body.data {
                    fields.bundleId = data.bundleId
                    fields.appAppleId = data.appAppleId
                    fields.environment = data.environment
                } else if let summary = body.summary {
                    fields.bundleId = summary.bundleId
                    fields.appAppleId = summary.appAppleId
                    fields.environment = summary.environment
                } else if let token = body.externalPurchaseToken {
                    fields.bundleId = token.bundleId
                    fields.appAppleId = token.appAppleId
                    fields.environment = token.externalPurchaseId?.hasPrefix("SANDBOX") == true ? "Sandbox" : "Production"
                }
                return fields
            }
        } catch where error.isDuplicateKey {
            // {"environment":"Sandbox","environment":"Production"} is one environment to this verifier, another to the next.
            throw SignedDataError(.invalidJWTFormat, "The JWS payload repeats a member, which readers resolve differently: \(error).")
        } catch {
            throw SignedDataError(
                .invalidJWTFormat,
                "The JWS payload is not a JSON object whose \(kind.rawValue) members have the expected types (dates are numbers of milliseconds, ids and names are strings, appAppleId is an integer).",
                detail: error.description
            )
        }
    }

    private struct Transaction: Decodable {
        var signedDate: Double?
        var bundleId: String?
        var environment: String?
    }

    private struct RenewalInfo: Decodable {
        var signedDate: Double?
        var environment: String?
    }

    private struct AppTransaction: Decodable {
        var receiptCreationDate: Double?
        var bundleId: String?
        var receiptType: String?
        var appAppleId: Int64?
    }

    private struct Notification: Decodable {
        var signedDate: Double?
        var notificationType: String?
        var subtype: String?
        var data: Scope?
        var summary: Scope?
        var externalPurchaseToken: ExternalPurchaseToken?
    }

    /// The app-identifying members shared by a notification's `data` and `summary`.
    private struct Scope: Decodable {
        var bundleId: String?
        var appAppleId: Int64?
        var environment: String?
    }

    private struct ExternalPurchaseToken: Decodable {
        var externalPurchaseId: String?
        var bundleId: String?
        var appAppleId: Int64?
    }
}

extension CheckedFields {
    /// Reads the fields a ``SignedDataVerifier`` checks from a payload, without verifying anything, e.g. to
    /// pick the environment to verify against.
    ///
    /// - Parameters:
    ///   - payload: The payload JSON bytes of a JWS.
    ///   - kind: What the payload is; it decides where bundle id and environment are read from.
    /// - Throws: ``SignedDataError`` `.invalidJWTFormat` when a checked member has the wrong JSON type or the
    ///   payload is not a JSON object.
    public static func read(payload: Data, kind: VerifiedSignedData.Kind) throws -> CheckedFields {
        try PayloadFields.read(payload, kind: kind)
    }
}
