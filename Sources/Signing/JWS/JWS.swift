import Foundation
import MatrixJSON

/// JWS compact serialization (RFC 7515 §7.1) for ES256 with an `x5c` certificate chain, as App Store
/// signed data uses it.
///
/// See <https://developer.apple.com/documentation/appstoreserverapi/jwstransaction>.
public enum JWS {
    /// Signs `payload` under a header given verbatim (for headers other than the App Store's, such as a
    /// different `alg`, a `kid` or a deliberately wrong chain).
    ///
    /// - Parameters:
    ///   - payload: The payload bytes.
    ///   - headerJSON: The exact header bytes to encode.
    ///   - key: The signing key; the signature is always ES256, whatever the header says.
    /// - Throws: ``SignedDataError`` `.cryptoFailure` if signing fails.
    public static func sign(payload: Data, headerJSON: Data, key: P256PrivateKey) throws -> String {
        try JWSSigner(key: key, headerJSON: headerJSON).sign(payload: payload)
    }

    /// Splits and decodes a compact JWS without verifying anything.
    ///
    /// - Parameter compact: `header.payload.signature`, nothing around it (a trailing newline is not base64url,
    ///   as for Apple's verifiers; trim text read from files first).
    /// - Returns: The decoded header, payload bytes, signature bytes and signing input.
    /// - Throws: ``SignedDataError`` `.invalidJWTFormat` when there are not exactly three parts, a part is
    ///   not base64url, or the header is not a JSON object with string `alg`/`kid`/`typ` and a string-array
    ///   `x5c` (each optional; other members are ignored) that names each member once (``StrictJSON``).
    public static func decode(_ compact: String) throws -> DecodedJWS {
        let (headerJSON, payload, signature, signingInput) = try parts(of: compact)
        let header: JWSHeader
        do throws(StrictJSONError) {
            header = try StrictJSON.decode(JWSHeader.self, from: headerJSON)
        } catch where error.isDuplicateKey {
            // {"alg":"ES256","alg":"none"} means ES256 to one reader and none to the next.
            throw SignedDataError(.invalidJWTFormat, "The JWS header repeats a member, which readers resolve differently: \(error).")
        } catch {
            throw SignedDataError(.invalidJWTFormat, "The JWS header is not a JSON object with string alg, kid, typ and a string array x5c.",
                                  detail: error.description)
        }
        return DecodedJWS(
            header: header,
            headerJSON: headerJSON,
            payload: payload,
            signature: signature,
            signingInput: signingInput
        )
    }

    /// Decodes only the payload of a compact JWS, e.g. to see what it is before choosing how to verify it.
    ///
    /// - Throws: ``SignedDataError`` `.invalidJWTFormat` when there are not exactly three parts or a part is
    ///   not base64url.
    public static func decodePayload(_ compact: String) throws -> Data {
        try parts(of: compact).payload
    }

    /// Splits on the UTF-8 bytes (a JWS is ASCII; splitting by Character would walk grapheme clusters) and
    /// decodes the three base64url parts.
    private static func parts(of compact: String) throws -> (header: Data, payload: Data, signature: [UInt8], signingInput: String) {
        var text = compact
        return try text.withUTF8 { bytes in
            var dots: [Int] = []
            for index in bytes.indices where bytes[index] == UInt8(ascii: ".") {
                dots.append(index)
                if dots.count > 2 { break }
            }
            guard dots.count == 2 else {
                let count = dots.count > 2 ? bytes.reduce(1) { $0 + ($1 == UInt8(ascii: ".") ? 1 : 0) } : dots.count + 1
                throw SignedDataError(.invalidJWTFormat, "A compact JWS has three dot-separated parts (header.payload.signature); found \(count).")
            }
            guard let header = Base64URL.decode(bytes: UnsafeBufferPointer(rebasing: bytes[..<dots[0]])) else {
                throw SignedDataError(.invalidJWTFormat, "The JWS header part is not base64url.")
            }
            guard let payload = Base64URL.decode(bytes: UnsafeBufferPointer(rebasing: bytes[(dots[0] + 1) ..< dots[1]])) else {
                throw SignedDataError(.invalidJWTFormat, "The JWS payload part is not base64url.")
            }
            guard let signature = Base64URL.decode(bytes: UnsafeBufferPointer(rebasing: bytes[(dots[1] + 1)...])) else {
                throw SignedDataError(.invalidJWTFormat, "The JWS signature part is not base64url.")
            }
            let signingInput = String(decoding: UnsafeBufferPointer(rebasing: bytes[..<dots[1]]), as: UTF8.self)
            return (header, payload, [UInt8](signature), signingInput)
        }
    }
}

/// The members of a JWS protected header that App Store data uses; other members are ignored.
public struct JWSHeader: Sendable, Hashable, Codable {
    /// The algorithm, `"ES256"` for App Store data.
    public var alg: String?
    /// The certificate chain as standard base64 (with padding) of each DER certificate, leaf first.
    public var x5c: [String]?
    /// A key id; StoreKit Testing in Xcode writes `"Apple_Xcode_Key"`.
    public var kid: String?
    /// The media type, usually `"JWT"`.
    public var typ: String?

    /// Creates a header.
    public init(alg: String? = nil, x5c: [String]? = nil, kid: String? = nil, typ: String? = nil) {
        self.alg = alg
        self.x5c = x5c
        self.kid = kid
        self.typ = typ
    }
}

/// A compact JWS split into its parts; nothing in it has been verified.
public struct DecodedJWS: Sendable {
    /// The decoded protected header.
    public var header: JWSHeader
    /// The header's JSON bytes as signed.
    public var headerJSON: Data
    /// The payload bytes as signed (JSON for App Store data).
    public var payload: Data
    /// The signature bytes (64 bytes r‖s for a well-formed ES256 JWS).
    public var signature: [UInt8]
    /// The ASCII text the signature covers: the first two base64url parts joined by a dot.
    public var signingInput: String
}

/// Signs many payloads under one key and one header, encoding the header only once.
///
/// Immutable and `Sendable`; share one signer between tasks.
public struct JWSSigner: Sendable {
    /// The signing key.
    public let key: P256PrivateKey
    private let encodedHeaderBytes: [UInt8]
    private let headerSigner: PrefixedSigner?

    /// The header, already base64url-encoded.
    public var encodedHeader: String {
        String(decoding: encodedHeaderBytes, as: UTF8.self)
    }

    /// A signer whose header is `{"alg":"ES256","x5c":[…]}`.
    ///
    /// - Parameters:
    ///   - key: The leaf certificate's private key.
    ///   - x5c: The chain, leaf first, each entry the standard base64 (with padding) of a DER certificate, as it
    ///     goes into the header. Entries that are not standard base64 are written all the same; the signer
    ///     checks no certificate (see `SignedData` for certificates).
    public init(key: P256PrivateKey, x5c: [String]) {
        // Standard base64 uses only A–Z a–z 0–9 + / =, none of which needs escaping in a JSON string, and
        // writing the text directly keeps `/` unescaped on every platform. Anything else is escaped.
        let chain = x5c.map { JSONText.quoted($0) }.joined(separator: ",")
        self.init(key: key, headerJSON: Data("{\"alg\":\"ES256\",\"x5c\":[\(chain)]}".utf8))
    }

    /// A signer that uses `headerJSON` verbatim as the header.
    public init(key: P256PrivateKey, headerJSON: Data) {
        self.key = key
        self.encodedHeaderBytes = Base64URL.encodedBytes(headerJSON)
        // The encoded header and its dot start every signing input; hashed once here, not for every payload (an
        // x5c chain makes it kilobytes long). Should the platform refuse, each signature hashes the whole input.
        self.headerSigner = try? key.signer(prefixedBy: encodedHeaderBytes + [UInt8(ascii: ".")])
    }

    /// Signs one payload.
    ///
    /// - Returns: The compact JWS `header.payload.signature`.
    /// - Throws: ``SignedDataError`` `.cryptoFailure` if signing fails.
    public func sign(payload: Data) throws -> String {
        var compact: [UInt8] = []
        compact.reserveCapacity(encodedHeaderBytes.count + payload.count * 4 / 3 + 96)
        compact.append(contentsOf: encodedHeaderBytes)
        compact.append(UInt8(ascii: "."))
        Base64URL.append(payload, to: &compact)
        let signature = try compact.withUnsafeBufferPointer { input in
            if let headerSigner {
                return try headerSigner.signature(forRest: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: input[(encodedHeaderBytes.count + 1)...])))
            }
            return try key.signature(for: input)
        }
        compact.append(UInt8(ascii: "."))
        Base64URL.append(signature, to: &compact)
        return String(decoding: compact, as: UTF8.self)
    }
}
