// A stand-in for Apple's Security framework (and the CoreFoundation types its calls take), for type-checking this
// package's Apple-only certificate backend on Linux (Sources/SignedData/Backends/Security):
// scripts/check-apple-branches.sh. Each function copies the signature and availability its Apple documentation
// page gives (the URL beside it); bodies are never run. Only what the backend calls is here.
//
// CoreFoundation types are bridged from Swift's on Apple platforms (`data as CFData`); Linux's compiler has no
// such bridging, so here they are the Swift types they bridge from. That checks names, labels, arity and the
// shapes passed, not the bridging itself.
import Foundation

public typealias CFData = Data
public typealias CFArray = [Any]
public typealias CFDate = Date
public typealias CFString = String
public typealias CFTypeRef = Any
public final class CFAllocator {}
public final class CFError: Error {}
public typealias OSStatus = Int32

/// Apple: https://developer.apple.com/documentation/corefoundation/1494686-cferrorcopydescription
@available(iOS 2.0, macOS 10.5, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
public func CFErrorCopyDescription(_ err: CFError) -> CFString { fatalError() }

/// Apple: https://developer.apple.com/documentation/security/errsecsuccess
public let errSecSuccess: OSStatus = 0

/// Apple: https://developer.apple.com/documentation/security/seccertificate
public final class SecCertificate {}
/// Apple: https://developer.apple.com/documentation/security/secpolicy
public final class SecPolicy {}
/// Apple: https://developer.apple.com/documentation/security/sectrust
public final class SecTrust {}

/// Apple: https://developer.apple.com/documentation/security/seccertificatecreatewithdata(_:_:)
@available(iOS 2.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
public func SecCertificateCreateWithData(_ allocator: CFAllocator?, _ data: CFData) -> SecCertificate? { fatalError() }

/// Apple: https://developer.apple.com/documentation/security/seccertificatecopydata(_:)
@available(iOS 2.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
public func SecCertificateCopyData(_ certificate: SecCertificate) -> CFData { fatalError() }

/// Apple: https://developer.apple.com/documentation/security/secpolicycreatebasicx509()
@available(iOS 2.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
public func SecPolicyCreateBasicX509() -> SecPolicy { fatalError() }

/// Apple: https://developer.apple.com/documentation/security/sectrustcreatewithcertificates(_:_:_:)
@available(iOS 2.0, macOS 10.3, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
public func SecTrustCreateWithCertificates(_ certificates: CFTypeRef, _ policies: CFTypeRef?,
                                           _ trust: UnsafeMutablePointer<SecTrust?>) -> OSStatus { fatalError() }

/// Apple: https://developer.apple.com/documentation/security/sectrustsetanchorcertificates(_:_:)
@available(iOS 2.0, macOS 10.3, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
public func SecTrustSetAnchorCertificates(_ trust: SecTrust, _ anchorCertificates: CFArray?) -> OSStatus { fatalError() }

/// Apple: https://developer.apple.com/documentation/security/sectrustsetanchorcertificatesonly(_:_:)
@available(iOS 2.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
public func SecTrustSetAnchorCertificatesOnly(_ trust: SecTrust, _ anchorCertificatesOnly: Bool) -> OSStatus { fatalError() }

/// Apple: https://developer.apple.com/documentation/security/sectrustsetverifydate(_:_:)
@available(iOS 2.0, macOS 10.3, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
public func SecTrustSetVerifyDate(_ trust: SecTrust, _ verifyDate: CFDate) -> OSStatus { fatalError() }

/// Apple: https://developer.apple.com/documentation/security/sectrustsetnetworkfetchallowed(_:_:)
@available(iOS 7.0, macOS 10.9, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
public func SecTrustSetNetworkFetchAllowed(_ trust: SecTrust, _ allowFetch: Bool) -> OSStatus { fatalError() }

/// Apple: https://developer.apple.com/documentation/security/sectrustevaluatewitherror(_:_:)
@available(iOS 12.0, macOS 10.14, tvOS 12.0, watchOS 5.0, visionOS 1.0, *)
public func SecTrustEvaluateWithError(_ trust: SecTrust, _ error: UnsafeMutablePointer<CFError?>?) -> Bool { fatalError() }

/// Apple: https://developer.apple.com/documentation/security/sectrustcopycertificatechain(_:)
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
public func SecTrustCopyCertificateChain(_ trust: SecTrust) -> CFArray? { fatalError() }
