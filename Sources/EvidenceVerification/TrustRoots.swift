import EvidenceArchive
import EvidenceStore
import FileIO
import Foundation
import SignedData

/// The trust anchors named by `--root`: `apple` (Apple Root CA - G3), `simulator` (the StoreKit Matrix
/// simulator root, not Apple's) or a certificate file (DER, or PEM with one or more certificates).
package struct TrustRoots {
    var certificates: [X509Certificate]
    /// What was asked for, for messages: `apple`, `simulator`, or the file paths.
    var names: [String]

    /// Resolves `--root` values.
    /// - Throws: ``VerificationFailure`` 66 for an unreadable file, 65 for a file that holds no certificate, 70 if an
    ///   embedded root cannot be loaded.
    package static func resolve(_ values: [String]) throws(VerificationFailure) -> TrustRoots {
        var certificates: [X509Certificate] = []
        for value in values {
            switch value {
            case "apple":
                do {
                    certificates.append(try AppleRootCertificates.rootCAG3)
                } catch {
                    throw VerificationFailure(.internalError, "the embedded Apple Root CA - G3 cannot be loaded: \(error)")
                }
            case "simulator":
                do {
                    certificates.append(try SimulatorPKI.default.root)
                } catch {
                    throw VerificationFailure(.internalError, "the embedded simulator root cannot be loaded: \(error)")
                }
            default:
                certificates += try load(value)
            }
        }
        return TrustRoots(certificates: certificates, names: values)
    }

    /// `CN=…` of every root, joined, for one-line messages.
    package var summary: String {
        certificates.map { certificate in
            let subject = certificate.subjectSummary
            return subject.split(separator: ",").first { $0.hasPrefix("CN=") }.map { String($0.dropFirst(3)) } ?? subject
        }.joined(separator: ", ")
    }

    private static func load(_ path: String) throws(VerificationFailure) -> [X509Certificate] {
        let bytes: [UInt8]
        do {
            bytes = try InputFile.read(path)
        } catch {
            throw VerificationFailure(.unreadableInput, "cannot read root certificate \(path): \(error.reason)")
        }
        let text = String(decoding: bytes, as: UTF8.self)
        if text.contains("-----BEGIN CERTIFICATE-----") {
            do {
                let certificates = try X509Certificate.certificates(pemRepresentation: text)
                if !certificates.isEmpty { return certificates }
            } catch {
                throw VerificationFailure(.invalidInput, "\(path): a CERTIFICATE block cannot be decoded: \(error)")
            }
        }
        do {
            return [try X509Certificate(derRepresentation: bytes)]
        } catch {
            throw VerificationFailure(.invalidInput, "\(path) is neither a DER certificate nor a PEM file with a CERTIFICATE block; pass apple, simulator or a certificate file to --root")
        }
    }
}
