import EvidenceArchive
import EvidenceStore
import Foundation
import SignedData
import Signing

/// What happened to one JWS.
package struct JWSOutcome {
    package enum Status: String {
        /// Chain, marker OIDs, signature, bundle id and environment all checked out.
        case verified
        /// Decoded and compared, but not signature-checked: Xcode or LocalTesting data that `--environment`
        /// accepts unsigned, as Apple's libraries do when their caller asks for that environment.
        case notChecked
        /// Something failed; ``code`` and ``message`` say what.
        case failed
    }

    package var status: Status
    package var kind: VerifiedSignedData.Kind?
    /// The environment the JWS was checked against, once known.
    package var environment: String?
    /// Apple's error name, e.g. `VERIFICATION_FAILURE`.
    package var code: String?
    package var message: String?
    /// What the signature check did.
    var signatureCheck: VerifiedSignedData.SignatureCheck?
    /// What was not compared, and why.
    package var notes: [String] = []
    /// For a failure: what would make it verify, when the person verifying may want that.
    package var hint: String?
    /// The payload bytes, when they decoded.
    package var payload: Data?

    /// What the signature check did, as a sentence (formatted only when asked for: it formats a date).
    package var signature: String? { signatureCheck?.description }

    /// `verification failure [VERIFICATION_FAILURE]: The chain …`
    package var failureText: String {
        "\(Self.phrase(code)) [\(code ?? "ERROR")]: \(message ?? "")"
    }

    /// Apple's error names as words.
    static func phrase(_ code: String?) -> String {
        switch code {
        case "INVALID_JWT_FORMAT": "invalid JWT format"
        case "INVALID_CERTIFICATE": "invalid certificate"
        case "VERIFICATION_FAILURE": "verification failure"
        case "INVALID_APP_IDENTIFIER": "invalid app identifier"
        case "INVALID_ENVIRONMENT": "invalid environment"
        case "INVALID_APP_APPLE_ID": "invalid app Apple id"
        case let other?: other.lowercased().replacingOccurrences(of: "_", with: " ")
        case nil: "error"
        }
    }
}

/// Verifies JWS the way Apple's `SignedDataVerifier` does, with the configuration a command line gives: the
/// trust roots, and optionally the bundle id, environment and app Apple id. What is not given is not
/// compared, and the outcome notes say so.
///
/// Only the person verifying decides what is checked, as only the caller of Apple's `SignedDataVerifier` does:
/// Xcode and LocalTesting data is decoded without a signature check when `--environment` names that
/// environment, never because a payload or a run's records say so. Without `--environment` every JWS is held
/// to the chain and signature checks, whatever environment it names.
///
/// Keeps one ``SignedDataVerifier`` per environment so that its verified-chain cache serves every JWS.
/// Used from one task at a time.
package final class SignedDataChecker {
    package let roots: TrustRoots
    let bundleId: String?
    /// `--environment`: the environment to require, and the only way to accept Xcode or LocalTesting data
    /// unsigned.
    let environment: String?
    /// The environment a run recorded for its signed data (`run.json` `signedEnvironment`), required of every
    /// JWS when `--environment` is not given; its data is signature-checked whatever it names.
    let recordedEnvironment: String?
    let appAppleId: Int64?
    private var verifiers: [String: SignedDataVerifier] = [:]

    package init(roots: TrustRoots, bundleId: String?, environment: String?, appAppleId: Int64?, recordedEnvironment: String? = nil) {
        self.roots = roots
        self.bundleId = bundleId
        self.environment = environment
        self.recordedEnvironment = recordedEnvironment
        self.appAppleId = appAppleId
    }

    /// Verifies one JWS; `kind` `nil` detects it from the payload.
    package func check(_ jws: String, kind requested: VerifiedSignedData.Kind?) -> JWSOutcome {
        let payload: Data
        do {
            payload = try JWS.decodePayload(jws)
        } catch {
            return Self.failure(error, kind: requested, payload: nil)
        }
        let kind = requested ?? VerifiedSignedData.Kind.detect(payload: payload) ?? .transaction
        let fields: CheckedFields
        do {
            fields = try CheckedFields.read(payload: payload, kind: kind)
        } catch {
            return Self.failure(error, kind: kind, payload: payload)
        }
        var notes: [String] = []
        var hint: String?
        let environment: String
        let signatureRequired: Bool
        if let asked = self.environment {
            environment = asked
            signatureRequired = false
        } else if let recorded = recordedEnvironment {
            environment = recorded
            signatureRequired = true
        } else {
            environment = fields.environment ?? "Sandbox"
            signatureRequired = true
            notes.append(fields.environment == nil
                ? "the payload names no environment and --environment was not given, so Sandbox is expected"
                : "environment taken from the payload (\(environment)), not compared; pass --environment to require one")
            if SignedDataVerifier.unsignedEnvironments.contains(environment) {
                hint = "the payload names environment \(environment), whose data Apple's verifiers decode without a signature check only "
                    + "when their caller asks for \(environment); pass --environment \(environment) to accept it unsigned"
            }
        }
        if bundleId == nil, kind != .renewalInfo {
            notes.append("bundleId not compared; pass --bundle-id to check it")
        }
        var appAppleId = self.appAppleId
        if environment == "Production", appAppleId == nil {
            appAppleId = fields.appAppleId ?? 0
            if kind == .notification || kind == .appTransaction {
                notes.append("appAppleId not compared; pass --app-apple-id to check it")
            }
        }
        do {
            let verifier = try verifier(environment: environment, appAppleId: appAppleId, signatureRequired: signatureRequired)
            let result = try verifier.verifyAndDecode(jws, kind: kind)
            if case .notChecked = result.signatureCheck {
                notes.append("signature NOT checked: --environment \(environment) accepts \(environment) data unsigned, as Apple's verifiers "
                             + "created for \(environment) do; only bundle id and environment were compared")
                return JWSOutcome(status: .notChecked, kind: kind, environment: environment, signatureCheck: result.signatureCheck,
                                  notes: notes, payload: result.payload)
            }
            return JWSOutcome(status: .verified, kind: kind, environment: environment, signatureCheck: result.signatureCheck,
                              notes: notes, payload: result.payload)
        } catch {
            var outcome = Self.failure(error, kind: kind, payload: payload)
            outcome.environment = environment
            outcome.notes = notes
            outcome.hint = hint
            return outcome
        }
    }

    private func verifier(environment: String, appAppleId: Int64?, signatureRequired: Bool) throws -> SignedDataVerifier {
        let key = "\(environment)|\(appAppleId.map(String.init) ?? "")|\(signatureRequired)"
        if let existing = verifiers[key] { return existing }
        let verifier = try SignedDataVerifier(rootCertificates: roots.certificates, bundleId: bundleId, appAppleId: appAppleId,
                                              environment: environment, signatureRequired: signatureRequired)
        verifiers[key] = verifier
        return verifier
    }

    private static func failure(_ error: any Error, kind: VerifiedSignedData.Kind?, payload: Data?) -> JWSOutcome {
        if let error = error as? SignedDataError {
            let detail = error.detail.map { " (\($0))" } ?? ""
            return JWSOutcome(status: .failed, kind: kind, code: error.code.rawValue, message: error.message + detail, payload: payload)
        }
        return JWSOutcome(status: .failed, kind: kind, code: "VERIFICATION_FAILURE", message: "\(error)", payload: payload)
    }
}
