// A stand-in for Apple's CryptoKit, for type-checking this package's Apple-only signing backend on Linux
// (Sources/Signing/Backends/CryptoKit): scripts/check-apple-branches.sh. Each declaration copies the signature and
// the availability Apple's documentation page gives it (the URL beside it); bodies are never run. Only what the
// backend calls is here.
import Foundation

/// Apple: https://developer.apple.com/documentation/cryptokit/digest
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
public protocol Digest: ContiguousBytes, CustomStringConvertible, Hashable, Sequence where Element == UInt8 {
    static var byteCount: Int { get }
}

/// Apple: https://developer.apple.com/documentation/cryptokit/hashfunction
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
public protocol HashFunction {
    associatedtype Digest: CryptoKit.Digest
    init()
    /// Apple: https://developer.apple.com/documentation/cryptokit/hashfunction/update(bufferpointer:)
    mutating func update(bufferPointer: UnsafeRawBufferPointer)
    /// Apple: https://developer.apple.com/documentation/cryptokit/hashfunction/finalize()
    func finalize() -> Self.Digest
}

/// Apple: https://developer.apple.com/documentation/cryptokit/sha256
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
public struct SHA256: HashFunction {
    public typealias Digest = SHA256Digest
    public init() { fatalError() }
    public mutating func update(bufferPointer: UnsafeRawBufferPointer) { fatalError() }
    public func finalize() -> SHA256Digest { fatalError() }
}

/// Apple: https://developer.apple.com/documentation/cryptokit/sha256digest
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
public struct SHA256Digest: Digest {
    public static var byteCount: Int { fatalError() }
    public var description: String { fatalError() }
    public func makeIterator() -> Array<UInt8>.Iterator { fatalError() }
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { fatalError() }
}

/// Apple: https://developer.apple.com/documentation/cryptokit/p256
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
public enum P256 {
    /// Apple: https://developer.apple.com/documentation/cryptokit/p256/signing
    public enum Signing {
        /// Apple: https://developer.apple.com/documentation/cryptokit/p256/signing/privatekey
        public struct PrivateKey: Sendable {
            /// Apple: https://developer.apple.com/documentation/cryptokit/p256/signing/privatekey/init(compactrepresentable:)
            public init(compactRepresentable: Bool = true) { fatalError() }
            /// Apple: https://developer.apple.com/documentation/cryptokit/p256/signing/privatekey/init(rawrepresentation:)
            public init<D: ContiguousBytes>(rawRepresentation data: D) throws { fatalError() }
            /// Apple: https://developer.apple.com/documentation/cryptokit/p256/signing/privatekey/init(pemrepresentation:)
            @available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
            public init(pemRepresentation: String) throws { fatalError() }
            /// Apple: https://developer.apple.com/documentation/cryptokit/p256/signing/privatekey/rawrepresentation
            public var rawRepresentation: Data { fatalError() }
            /// Apple: https://developer.apple.com/documentation/cryptokit/p256/signing/privatekey/pemrepresentation
            @available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
            public var pemRepresentation: String { fatalError() }
            /// Apple: https://developer.apple.com/documentation/cryptokit/p256/signing/privatekey/publickey
            public var publicKey: P256.Signing.PublicKey { fatalError() }
            /// Apple: https://developer.apple.com/documentation/cryptokit/p256/signing/privatekey/signature(for:)-5h94p
            public func signature<D: DataProtocol>(for data: D) throws -> P256.Signing.ECDSASignature { fatalError() }
            /// Apple: https://developer.apple.com/documentation/cryptokit/p256/signing/privatekey/signature(for:)
            public func signature<D: Digest>(for digest: D) throws -> P256.Signing.ECDSASignature { fatalError() }
        }

        /// Apple: https://developer.apple.com/documentation/cryptokit/p256/signing/publickey
        public struct PublicKey: Sendable {
            /// Apple: https://developer.apple.com/documentation/cryptokit/p256/signing/publickey/init(derrepresentation:)
            @available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
            public init<Bytes: RandomAccessCollection>(derRepresentation: Bytes) throws where Bytes.Element == UInt8 { fatalError() }
            /// Apple: https://developer.apple.com/documentation/cryptokit/p256/signing/publickey/init(pemrepresentation:)
            @available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
            public init(pemRepresentation: String) throws { fatalError() }
            /// Apple: https://developer.apple.com/documentation/cryptokit/p256/signing/publickey/derrepresentation
            @available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
            public var derRepresentation: Data { fatalError() }
            /// Apple: https://developer.apple.com/documentation/cryptokit/p256/signing/publickey/isvalidsignature(_:for:)-4s8c9
            public func isValidSignature<D: DataProtocol>(_ signature: P256.Signing.ECDSASignature, for data: D) -> Bool { fatalError() }
            /// Apple: https://developer.apple.com/documentation/cryptokit/p256/signing/publickey/isvalidsignature(_:for:)
            public func isValidSignature<D: Digest>(_ signature: P256.Signing.ECDSASignature, for digest: D) -> Bool { fatalError() }
        }

        /// Apple: https://developer.apple.com/documentation/cryptokit/p256/signing/ecdsasignature
        public struct ECDSASignature: Sendable {
            /// Apple: https://developer.apple.com/documentation/cryptokit/p256/signing/ecdsasignature/init(rawrepresentation:)
            public init<D: DataProtocol>(rawRepresentation: D) throws { fatalError() }
            /// Apple: https://developer.apple.com/documentation/cryptokit/p256/signing/ecdsasignature/init(derrepresentation:)
            public init<D: DataProtocol>(derRepresentation: D) throws { fatalError() }
            /// Apple: https://developer.apple.com/documentation/cryptokit/p256/signing/ecdsasignature/rawrepresentation
            public var rawRepresentation: Data { fatalError() }
            /// Apple: https://developer.apple.com/documentation/cryptokit/p256/signing/ecdsasignature/derrepresentation
            public var derRepresentation: Data { fatalError() }
        }
    }
}
