import COpenSSL
import Foundation
import Signing

extension X509Certificate {
    /// Builds and verifies a certificate chain from `leaf` to one of `roots` with OpenSSL's verifier.
    ///
    /// Signatures, validity periods (at `date`, not the current time), basic constraints and path lengths,
    /// key usage and name chaining are checked by `X509_verify_cert`. Only `roots` are trusted; any root
    /// among `intermediates` is ignored as a trust anchor.
    ///
    /// - Parameters:
    ///   - leaf: The end-entity certificate.
    ///   - intermediates: Untrusted certificates that may be used to build the path.
    ///   - roots: Trust anchors (self-signed).
    ///   - date: The moment at which every certificate must be valid (second precision).
    ///   - strict: Also apply OpenSSL's `X509_V_FLAG_X509_STRICT` checks (for example that CA certificates
    ///     carry Subject and Authority Key Identifiers), as Apple's Python library does by default.
    /// - Returns: The verified chain, leaf first, trust anchor last.
    /// - Throws: ``SignedDataError`` `.invalidCertificate` when `roots` is empty;
    ///   `.verificationFailure` naming the failing depth, subject and OpenSSL's reason
    ///   (`X509_verify_cert_error_string`) when the chain does not verify.
    @discardableResult
    public static func verifyChain(
        leaf: X509Certificate,
        intermediates: [X509Certificate],
        roots: [X509Certificate],
        at date: Date,
        strict: Bool = false
    ) throws -> [X509Certificate] {
        guard !roots.isEmpty else {
            throw SignedDataError(.invalidCertificate, "No root certificates are configured, so no chain can be trusted; pass at least one root.")
        }
        let seconds = date.timeIntervalSince1970.rounded(.down)
        guard seconds.isFinite, abs(seconds) < 1e14 else {
            throw SignedDataError(.verificationFailure, "The validation time \(date.timeIntervalSince1970) s since 1970 is out of range; check that signedDate is in milliseconds.")
        }
        guard let store = X509_STORE_new() else {
            throw OpenSSLSupport.error(.cryptoFailure, "Could not allocate a certificate store.")
        }
        defer { X509_STORE_free(store) }
        for root in roots {
            // X509_STORE_add_cert takes its own reference.
            guard X509_STORE_add_cert(store, root.handle.pointer) == 1 else {
                throw OpenSSLSupport.error(.invalidCertificate, "Could not add root \(root.subjectSummary) to the trust store.")
            }
        }
        guard let untrusted = skm_x509_stack_new() else {
            throw OpenSSLSupport.error(.cryptoFailure, "Could not allocate a certificate stack.")
        }
        defer { skm_x509_stack_free(untrusted) }
        for intermediate in intermediates {
            guard skm_x509_stack_push(untrusted, intermediate.handle.pointer) > 0 else {
                throw OpenSSLSupport.error(.cryptoFailure, "Could not collect the intermediate certificates.")
            }
        }
        guard let context = X509_STORE_CTX_new() else {
            throw OpenSSLSupport.error(.cryptoFailure, "Could not allocate a verification context.")
        }
        defer { X509_STORE_CTX_free(context) }
        guard X509_STORE_CTX_init(context, store, leaf.handle.pointer, untrusted) == 1,
              let parameters = X509_STORE_CTX_get0_param(context) else {
            throw OpenSSLSupport.error(.cryptoFailure, "Could not initialise certificate verification.")
        }
        X509_VERIFY_PARAM_set_time(parameters, time_t(seconds))
        if strict {
            X509_VERIFY_PARAM_set_flags(parameters, UInt(X509_V_FLAG_X509_STRICT))
        }

        guard X509_verify_cert(context) == 1 else {
            let code = X509_STORE_CTX_get_error(context)
            let depth = X509_STORE_CTX_get_error_depth(context)
            let reason = String(cString: X509_verify_cert_error_string(Int(code)))
            var subject = ""
            if let failing = X509_STORE_CTX_get_current_cert(context) {
                subject = " (\(summary(of: X509_get_subject_name(failing))))"
            }
            let moment = ISO8601DateFormatter().string(from: date)
            throw SignedDataError(
                .verificationFailure,
                "The certificate chain does not verify at \(moment): \(reason) at depth \(depth)\(subject).",
                detail: OpenSSLSupport.drainErrors()
            )
        }

        guard let chain = X509_STORE_CTX_get1_chain(context) else {
            throw OpenSSLSupport.error(.cryptoFailure, "OpenSSL verified the chain but returned none.")
        }
        defer { skm_x509_stack_free_all(chain) }
        var verified: [X509Certificate] = []
        for index in 0 ..< skm_x509_stack_count(chain) {
            guard let pointer = skm_x509_stack_get(chain, index), X509_up_ref(pointer) == 1 else {
                throw OpenSSLSupport.error(.cryptoFailure, "Could not read the verified chain.")
            }
            verified.append(try X509Certificate(taking: pointer))
        }
        return verified
    }
}
