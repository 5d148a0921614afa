import Foundation
import Signing

/// Apple's public root certificates that anchor App Store signed data.
///
/// From the "Apple Root Certificates" section of <https://www.apple.com/certificateauthority/>.
public enum AppleRootCertificates {
    /// The DER of Apple Root CA - G3 (ECC P-384, serial 2DC5FC88D2C54B95, valid 2014-04-30 ..
    /// 2039-04-30), the trust anchor of every App Store JWS (transactions, renewal info, notifications,
    /// app transactions).
    ///
    /// SHA-256 fingerprint
    /// 63:34:3A:BF:B8:9A:6A:03:EB:B5:7E:9B:3F:5F:A7:BE:7C:4F:5C:75:6F:30:17:B3:A8:C4:88:C3:65:3E:91:79.
    public static var rootCAG3DER: [UInt8] {
        [UInt8](Data(base64Encoded: rootCAG3Base64, options: .ignoreUnknownCharacters) ?? Data())
    }

    /// Apple Root CA - G3, parsed.
    ///
    /// - Throws: SignedDataError `.invalidCertificate` only if the embedded bytes were damaged.
    public static var rootCAG3: X509Certificate {
        get throws {
            try rootCAG3Result.get()
        }
    }

    private static let rootCAG3Result: Result<X509Certificate, SignedDataError> = {
        do {
            return .success(try X509Certificate(derRepresentation: rootCAG3DER))
        } catch let error as SignedDataError {
            return .failure(error)
        } catch {
            return .failure(SignedDataError(.invalidCertificate, "The embedded Apple Root CA - G3 could not be parsed."))
        }
    }()

    /// AppleRootCA-G3.cer from apple.com/certificateauthority, standard base64.
    private static let rootCAG3Base64 = """
        MIICQzCCAcmgAwIBAgIILcX8iNLFS5UwCgYIKoZIzj0EAwMwZzEbMBkGA1UEAwwSQXBwbGUgUm9v
        dCBDQSAtIEczMSYwJAYDVQQLDB1BcHBsZSBDZXJ0aWZpY2F0aW9uIEF1dGhvcml0eTETMBEGA1UE
        CgwKQXBwbGUgSW5jLjELMAkGA1UEBhMCVVMwHhcNMTQwNDMwMTgxOTA2WhcNMzkwNDMwMTgxOTA2
        WjBnMRswGQYDVQQDDBJBcHBsZSBSb290IENBIC0gRzMxJjAkBgNVBAsMHUFwcGxlIENlcnRpZmlj
        YXRpb24gQXV0aG9yaXR5MRMwEQYDVQQKDApBcHBsZSBJbmMuMQswCQYDVQQGEwJVUzB2MBAGByqG
        SM49AgEGBSuBBAAiA2IABJjpLz1AcqTtkyJygRMc3RCV8cWjTnHcFBbZDuWmBSp3ZHtfTjjTuxxE
        tX/1H7YyYl3J6YRbTzBPEVoA/VhYDKX1DyxNB0cTddqXl5dvMVztK517IDvYuVTZXpmkOlEKMaNC
        MEAwHQYDVR0OBBYEFLuw3qFYM4iapIqZ3r6966/ayySrMA8GA1UdEwEB/wQFMAMBAf8wDgYDVR0P
        AQH/BAQDAgEGMAoGCCqGSM49BAMDA2gAMGUCMQCD6cHEFl4aXTQY2e3v9GwOAEZLuN+yRhHFD/3m
        eoyhpmvOwgPUnPWTxnS4at+qIxUCMG1mihDK1A3UT82NQz60imOlM27jbdoXt2QfyFMm+YhidDkL
        F1vLUagM6BgD56KyKA==
        """
}
