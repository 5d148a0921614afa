#if !canImport(Security)
import COpenSSL
import Foundation
import Signing

// The Linux side of certificates: OpenSSL checks that bytes are a certificate and verifies chains. The fields
// are read from the DER by CertificateFields on every platform.
enum CertificateBackend {
    /// Whether OpenSSL reads the bytes as exactly one certificate.
    static func accepts(_ bytes: [UInt8]) -> Bool {
        (try? Handle(bytes)) != nil
    }

    static func verifyChain(leaf: X509Certificate, intermediates: [X509Certificate], roots: [X509Certificate],
                            at date: Date, strict: Bool) throws -> [X509Certificate] {
        let seconds = date.timeIntervalSince1970
        let handles = try ([leaf] + intermediates + roots).map(Handle.init)
        let leafHandle = handles[0]
        let intermediateHandles = handles[1 ..< 1 + intermediates.count]
        let rootHandles = handles[(1 + intermediates.count)...]
        guard let store = X509_STORE_new() else {
            throw OpenSSLSupport.error(.cryptoFailure, "Could not allocate a certificate store.")
        }
        defer { X509_STORE_free(store) }
        for (root, handle) in zip(roots, rootHandles) {
            // X509_STORE_add_cert takes its own reference.
            guard X509_STORE_add_cert(store, handle.pointer) == 1 else {
                throw OpenSSLSupport.error(.invalidCertificate, "Could not add root \(root.subjectSummary) to the trust store.")
            }
        }
        guard let untrusted = skm_x509_stack_new() else {
            throw OpenSSLSupport.error(.cryptoFailure, "Could not allocate a certificate stack.")
        }
        defer { skm_x509_stack_free(untrusted) }
        for intermediate in intermediateHandles {
            guard skm_x509_stack_push(untrusted, intermediate.pointer) > 0 else {
                throw OpenSSLSupport.error(.cryptoFailure, "Could not collect the intermediate certificates.")
            }
        }
        guard let context = X509_STORE_CTX_new() else {
            throw OpenSSLSupport.error(.cryptoFailure, "Could not allocate a verification context.")
        }
        defer { X509_STORE_CTX_free(context) }
        guard X509_STORE_CTX_init(context, store, leafHandle.pointer, untrusted) == 1,
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
                subject = " (\(Handle.subject(of: failing)))"
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
        // The chain holds the very X509 objects given, so each maps back to the certificate it was made from.
        let given = Dictionary(zip(handles.map(\.pointer), [leaf] + intermediates + roots)) { first, _ in first }
        var verified: [X509Certificate] = []
        for index in 0 ..< skm_x509_stack_count(chain) {
            guard let pointer = skm_x509_stack_get(chain, index), let certificate = given[pointer] else {
                throw OpenSSLSupport.error(.cryptoFailure, "Could not read the verified chain.")
            }
            verified.append(certificate)
        }
        return verified
    }

    /// Owns one OpenSSL `X509` reference.
    final class Handle {
        let pointer: OpaquePointer

        init(taking pointer: OpaquePointer) {
            self.pointer = pointer
        }

        convenience init(_ certificate: X509Certificate) throws {
            try self.init(certificate.derRepresentation)
        }

        /// Parses exactly one DER certificate.
        convenience init(_ bytes: [UInt8]) throws {
            let parsed: OpaquePointer? = bytes.withUnsafeBufferPointer { buffer in
                var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
                let parsed = d2i_X509(nil, &cursor, buffer.count)
                if let parsed, let cursor, let base = buffer.baseAddress, cursor - base != buffer.count {
                    X509_free(parsed)
                    return nil
                }
                return parsed
            }
            guard let parsed else {
                throw OpenSSLSupport.error(.invalidCertificate, "The \(bytes.count) bytes are not one DER X.509 certificate.")
            }
            self.init(taking: parsed)
        }

        deinit {
            X509_free(pointer)
        }

        /// The subject of a certificate OpenSSL holds, in RFC 2253 form, for a message.
        static func subject(of certificate: OpaquePointer) -> String {
            guard let name = X509_get_subject_name(certificate) else { return "" }
            let bytes = (try? OpenSSLSupport.collectBIO { bio in
                X509_NAME_print_ex(bio, name, 0, skm_name_print_flags()) >= 0
            }) ?? []
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}
#endif
