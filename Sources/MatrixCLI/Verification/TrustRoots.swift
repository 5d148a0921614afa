import Foundation
import SignedData

/// The trust anchors named by `--root`: `apple` (Apple Root CA - G3), `simulator` (the StoreKit Matrix
/// simulator root, not Apple's) or a certificate file (DER, or PEM with one or more certificates).
struct TrustRoots {
    var certificates: [X509Certificate]
    /// What was asked for, for messages: `apple`, `simulator`, or the file paths.
    var names: [String]

    /// Resolves `--root` values.
    /// - Throws: ``CommandFailure`` 66 for an unreadable file, 65 for a file that holds no certificate, 70 if an
    ///   embedded root cannot be loaded.
    static func resolve(_ values: [String]) throws(CommandFailure) -> TrustRoots {
        var certificates: [X509Certificate] = []
        for value in values {
            switch value {
            case "apple":
                do {
                    certificates.append(try AppleRootCertificates.rootCAG3)
                } catch {
                    throw CommandFailure("the embedded Apple Root CA - G3 cannot be loaded: \(error)", code: .software)
                }
            case "simulator":
                do {
                    certificates.append(try SimulatorPKI.default.root)
                } catch {
                    throw CommandFailure("the embedded simulator root cannot be loaded: \(error)", code: .software)
                }
            default:
                certificates += try load(value)
            }
        }
        return TrustRoots(certificates: certificates, names: values)
    }

    /// `CN=…` of every root, joined, for one-line messages.
    var summary: String {
        certificates.map { certificate in
            let subject = certificate.subjectSummary
            return subject.split(separator: ",").first { $0.hasPrefix("CN=") }.map { String($0.dropFirst(3)) } ?? subject
        }.joined(separator: ", ")
    }

    private static func load(_ path: String) throws(CommandFailure) -> [X509Certificate] {
        let bytes = try InputFiles.readArgument(path, what: "root certificate")
        let text = String(decoding: bytes, as: UTF8.self)
        if text.contains("-----BEGIN CERTIFICATE-----") {
            do {
                let certificates = try X509Certificate.certificates(pemRepresentation: text)
                if !certificates.isEmpty { return certificates }
            } catch {
                throw CommandFailure("\(path): a CERTIFICATE block cannot be decoded: \(error)", code: .dataError)
            }
        }
        do {
            return [try X509Certificate(derRepresentation: bytes)]
        } catch {
            throw CommandFailure("\(path) is neither a DER certificate nor a PEM file with a CERTIFICATE block; pass apple, simulator or a certificate file to --root",
                                 code: .dataError)
        }
    }
}
