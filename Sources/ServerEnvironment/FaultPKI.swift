import SignedData
import Signing

// Apple's App Store Server Library test PKI (testLeaf ← testIntermediate ← testCA, P-256, valid 2023-01-05 ..
// 2033-01-01), byte for byte as Tests/SignedDataTests/Fixtures/test-pki holds it (MIT, see
// Tests/SignedDataTests/Fixtures/LICENSE-app-store-server-library.txt). testInvalidOIDLeaf has testLeaf's key
// and carries 1.2.840.113635.100.6.11.2 instead of Apple's leaf marker 1.2.840.113635.100.6.11.1. Nothing
// trusts this PKI: `--signing-faults` signs with it what a correct backend must refuse.

/// The certificates and key that sign `wrongChain` and `missingMarkerOID` faults, loaded through libcrypto.
struct FaultPKI: Sendable {
    let key: P256PrivateKey
    let leaf: X509Certificate
    let leafWithoutMarker: X509Certificate
    let intermediate: X509Certificate
    let root: X509Certificate

    /// Loaded once for the process; `nil` if a PEM below does not load (it would mean libcrypto changed).
    static let shared: FaultPKI? = try? load()

    /// - Throws: ``SignedDataError`` if a PEM below does not load.
    static func load() throws -> FaultPKI {
        FaultPKI(key: try P256PrivateKey(pemRepresentation: keyPEM), leaf: try X509Certificate(pemRepresentation: leafPEM),
                 leafWithoutMarker: try X509Certificate(pemRepresentation: invalidOIDLeafPEM),
                 intermediate: try X509Certificate(pemRepresentation: intermediatePEM), root: try X509Certificate(pemRepresentation: rootPEM))
    }

    static let keyPEM = """
-----BEGIN EC PRIVATE KEY-----
MHcCAQEEID4h7a+2lJvajaw0RBeufb17snbjEkftGq2b5BuBgXGIoAoGCCqGSM49
AwEHoUQDQgAE4rWBxGmFbnPIPQI0zsBKzLxsj8pD2vqbr0yPISUx2WQyxmrNql9f
hK8YEEyYFV7++p5i4YUSR/o9uQIgCPIhrA==
-----END EC PRIVATE KEY-----
"""

    static let leafPEM = """
Certificate:
    Data:
        Version: 3 (0x2)
        Serial Number: 12 (0xc)
    Signature Algorithm: ecdsa-with-SHA384
        Issuer: C=US, ST=CA, L=Cupertino, O=Intermediate
        Validity
            Not Before: Jan  5 21:31:34 2023 GMT
            Not After : Jan  1 21:31:34 2033 GMT
        Subject: C=US, ST=CA, L=Cupertino, O=Leaf
        Subject Public Key Info:
            Public Key Algorithm: id-ecPublicKey
                Public-Key: (256 bit)
                pub: 
                    04:e2:b5:81:c4:69:85:6e:73:c8:3d:02:34:ce:c0:
                    4a:cc:bc:6c:8f:ca:43:da:fa:9b:af:4c:8f:21:25:
                    31:d9:64:32:c6:6a:cd:aa:5f:5f:84:af:18:10:4c:
                    98:15:5e:fe:fa:9e:62:e1:85:12:47:fa:3d:b9:02:
                    20:08:f2:21:ac
                ASN1 OID: prime256v1
                NIST CURVE: P-256
        X509v3 extensions:
            X509v3 Basic Constraints: 
                CA:FALSE
            X509v3 Key Usage: critical
                Digital Signature
            1.2.840.113635.100.6.11.1: 
                ..
    Signature Algorithm: ecdsa-with-SHA384
         30:45:02:20:57:e1:cf:93:d0:5a:79:9c:9e:50:44:29:51:7e:
         ee:4f:48:1c:91:bc:d3:ed:b9:a4:ec:93:4b:cf:07:75:80:20:
         02:21:00:d8:1a:6a:e0:23:fd:83:fd:b3:40:24:12:1c:89:87:
         14:0e:ff:a4:36:ce:8b:99:f8:7d:42:20:e7:a1:9c:cc:d0
-----BEGIN CERTIFICATE-----
MIIBoDCCAUagAwIBAgIBDDAKBggqhkjOPQQDAzBFMQswCQYDVQQGEwJVUzELMAkG
A1UECAwCQ0ExEjAQBgNVBAcMCUN1cGVydGlubzEVMBMGA1UECgwMSW50ZXJtZWRp
YXRlMB4XDTIzMDEwNTIxMzEzNFoXDTMzMDEwMTIxMzEzNFowPTELMAkGA1UEBhMC
VVMxCzAJBgNVBAgMAkNBMRIwEAYDVQQHDAlDdXBlcnRpbm8xDTALBgNVBAoMBExl
YWYwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAATitYHEaYVuc8g9AjTOwErMvGyP
ykPa+puvTI8hJTHZZDLGas2qX1+ErxgQTJgVXv76nmLhhRJH+j25AiAI8iGsoy8w
LTAJBgNVHRMEAjAAMA4GA1UdDwEB/wQEAwIHgDAQBgoqhkiG92NkBgsBBAIFADAK
BggqhkjOPQQDAwNIADBFAiBX4c+T0Fp5nJ5QRClRfu5PSByRvNPtuaTsk0vPB3WA
IAIhANgaauAj/YP9s0AkEhyJhxQO/6Q2zouZ+H1CIOehnMzQ
-----END CERTIFICATE-----
"""

    static let invalidOIDLeafPEM = """
Certificate:
    Data:
        Version: 3 (0x2)
        Serial Number: 15 (0xf)
    Signature Algorithm: ecdsa-with-SHA384
        Issuer: C=US, ST=CA, L=Cupertino, O=Intermediate
        Validity
            Not Before: Jan  5 21:37:31 2023 GMT
            Not After : Jan  1 21:37:31 2033 GMT
        Subject: C=US, ST=CA, L=Cupertino, O=Leaf
        Subject Public Key Info:
            Public Key Algorithm: id-ecPublicKey
                Public-Key: (256 bit)
                pub: 
                    04:e2:b5:81:c4:69:85:6e:73:c8:3d:02:34:ce:c0:
                    4a:cc:bc:6c:8f:ca:43:da:fa:9b:af:4c:8f:21:25:
                    31:d9:64:32:c6:6a:cd:aa:5f:5f:84:af:18:10:4c:
                    98:15:5e:fe:fa:9e:62:e1:85:12:47:fa:3d:b9:02:
                    20:08:f2:21:ac
                ASN1 OID: prime256v1
                NIST CURVE: P-256
        X509v3 extensions:
            X509v3 Basic Constraints: 
                CA:FALSE
            X509v3 Key Usage: critical
                Digital Signature
            1.2.840.113635.100.6.11.2: 
                ..
    Signature Algorithm: ecdsa-with-SHA384
         30:45:02:20:1b:fb:b4:b7:8b:ff:db:48:6c:bb:b2:42:58:f7:
         e0:f8:56:07:10:2c:a1:5e:61:f2:0c:4a:b5:02:99:da:c5:ab:
         02:21:00:83:15:c3:30:f5:46:bc:4f:46:d2:72:88:e0:97:2f:
         28:9b:22:fc:1c:63:e5:52:ef:71:d8:7e:4d:0e:f6:58:33
-----BEGIN CERTIFICATE-----
MIIBoDCCAUagAwIBAgIBDzAKBggqhkjOPQQDAzBFMQswCQYDVQQGEwJVUzELMAkG
A1UECAwCQ0ExEjAQBgNVBAcMCUN1cGVydGlubzEVMBMGA1UECgwMSW50ZXJtZWRp
YXRlMB4XDTIzMDEwNTIxMzczMVoXDTMzMDEwMTIxMzczMVowPTELMAkGA1UEBhMC
VVMxCzAJBgNVBAgMAkNBMRIwEAYDVQQHDAlDdXBlcnRpbm8xDTALBgNVBAoMBExl
YWYwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAATitYHEaYVuc8g9AjTOwErMvGyP
ykPa+puvTI8hJTHZZDLGas2qX1+ErxgQTJgVXv76nmLhhRJH+j25AiAI8iGsoy8w
LTAJBgNVHRMEAjAAMA4GA1UdDwEB/wQEAwIHgDAQBgoqhkiG92NkBgsCBAIFADAK
BggqhkjOPQQDAwNIADBFAiAb+7S3i//bSGy7skJY9+D4VgcQLKFeYfIMSrUCmdrF
qwIhAIMVwzD1RrxPRtJyiOCXLyibIvwcY+VS73HYfk0O9lgz
-----END CERTIFICATE-----
"""

    static let intermediatePEM = """
Certificate:
    Data:
        Version: 3 (0x2)
        Serial Number: 11 (0xb)
    Signature Algorithm: ecdsa-with-SHA384
        Issuer: C=US, ST=California, L=Cupertino
        Validity
            Not Before: Jan  5 21:31:05 2023 GMT
            Not After : Jan  1 21:31:05 2033 GMT
        Subject: C=US, ST=CA, L=Cupertino, O=Intermediate
        Subject Public Key Info:
            Public Key Algorithm: id-ecPublicKey
                Public-Key: (256 bit)
                pub: 
                    04:15:0d:e5:5f:6b:2a:37:d1:88:c0:08:a2:31:00:
                    d0:0b:f9:32:9d:28:17:e3:b4:70:be:20:ce:b4:c5:
                    d7:bf:22:9d:41:ee:82:3e:c4:b7:8e:8d:ae:44:3b:
                    84:a8:0c:56:78:e8:82:ae:39:43:5a:cc:b3:e7:0c:
                    1d:53:48:2d:6a
                ASN1 OID: prime256v1
                NIST CURVE: P-256
        X509v3 extensions:
            X509v3 Basic Constraints: 
                CA:TRUE, pathlen:0
            X509v3 Key Usage: critical
                Certificate Sign, CRL Sign
            1.2.840.113635.100.6.2.1: 
                ..
    Signature Algorithm: ecdsa-with-SHA384
         30:45:02:21:00:a6:b0:82:98:b3:8d:6e:96:5b:2c:1d:7e:2b:
         56:f7:94:4f:46:7b:22:ce:7f:84:b2:b5:94:53:d3:b6:e9:f7:
         84:02:20:73:6f:b6:44:6e:7e:80:d7:05:55:cb:3e:5c:97:84:
         97:81:99:fa:88:e5:dd:13:8e:9a:59:7e:c9:ee:dd:ca:74
-----BEGIN CERTIFICATE-----
MIIBnzCCAUWgAwIBAgIBCzAKBggqhkjOPQQDAzA2MQswCQYDVQQGEwJVUzETMBEG
A1UECAwKQ2FsaWZvcm5pYTESMBAGA1UEBwwJQ3VwZXJ0aW5vMB4XDTIzMDEwNTIx
MzEwNVoXDTMzMDEwMTIxMzEwNVowRTELMAkGA1UEBhMCVVMxCzAJBgNVBAgMAkNB
MRIwEAYDVQQHDAlDdXBlcnRpbm8xFTATBgNVBAoMDEludGVybWVkaWF0ZTBZMBMG
ByqGSM49AgEGCCqGSM49AwEHA0IABBUN5V9rKjfRiMAIojEA0Av5Mp0oF+O0cL4g
zrTF178inUHugj7Et46NrkQ7hKgMVnjogq45Q1rMs+cMHVNILWqjNTAzMA8GA1Ud
EwQIMAYBAf8CAQAwDgYDVR0PAQH/BAQDAgEGMBAGCiqGSIb3Y2QGAgEEAgUAMAoG
CCqGSM49BAMDA0gAMEUCIQCmsIKYs41ullssHX4rVveUT0Z7Is5/hLK1lFPTtun3
hAIgc2+2RG5+gNcFVcs+XJeEl4GZ+ojl3ROOmll+ye7dynQ=
-----END CERTIFICATE-----
"""

    static let rootPEM = """
-----BEGIN CERTIFICATE-----
MIIBgjCCASmgAwIBAgIJALUc5ALiH5pbMAoGCCqGSM49BAMDMDYxCzAJBgNVBAYT
AlVTMRMwEQYDVQQIDApDYWxpZm9ybmlhMRIwEAYDVQQHDAlDdXBlcnRpbm8wHhcN
MjMwMTA1MjEzMDIyWhcNMzMwMTAyMjEzMDIyWjA2MQswCQYDVQQGEwJVUzETMBEG
A1UECAwKQ2FsaWZvcm5pYTESMBAGA1UEBwwJQ3VwZXJ0aW5vMFkwEwYHKoZIzj0C
AQYIKoZIzj0DAQcDQgAEc+/Bl+gospo6tf9Z7io5tdKdrlN1YdVnqEhEDXDShzdA
JPQijamXIMHf8xWWTa1zgoYTxOKpbuJtDplz1XriTaMgMB4wDAYDVR0TBAUwAwEB
/zAOBgNVHQ8BAf8EBAMCAQYwCgYIKoZIzj0EAwMDRwAwRAIgemWQXnMAdTad2JDJ
Wng9U4uBBL5mA7WI05H7oH7c6iQCIHiRqMjNfzUAyiu9h6rOU/K+iTR0I/3Y/NSW
sXHX+acc
-----END CERTIFICATE-----
"""
}
