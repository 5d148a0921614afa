// libFuzzer harness: text as a compact JWS through JWS.decode and SignedDataVerifier (trusting the simulator's
// test root), linked by fuzz/run.sh against Sources/SignedData. The first byte picks the
// kind of signed data; the rest is the JWS. Any input must verify or throw SignedDataError, never crash or hang.
import Foundation
import SignedData

let verifiers: [SignedDataVerifier] = {
    guard let pki = try? SimulatorPKI.default else { return [] }
    return ["Sandbox", "Production", "Xcode", "LocalTesting"].compactMap {
        try? SignedDataVerifier(rootCertificates: [pki.root], bundleId: "com.example.storekitmatrix", appAppleId: 1_234_567_890,
                                environment: $0, now: { Date(timeIntervalSince1970: 1_767_225_600) })
    }
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJWS(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0, !verifiers.isEmpty else { return 0 }
    let selector = Int(data[0])
    let text = String(decoding: UnsafeBufferPointer(start: data + 1, count: size - 1), as: UTF8.self)
    if let decoded = try? JWS.decode(text) {
        _ = try? decoded.header.certificates()
    }
    let kinds: [VerifiedSignedData.Kind] = [.transaction, .renewalInfo, .notification, .appTransaction]
    let verifier = verifiers[selector % verifiers.count]
    do {
        _ = try verifier.verifyAndDecode(text, kind: kinds[(selector / verifiers.count) % kinds.count])
    } catch is SignedDataError {
        // Refused, as it should be for almost every input.
    } catch {
        violation("SignedDataVerifier threw something other than SignedDataError: \(error)")
    }
    return 0
}

/// Reports a broken property to libFuzzer, which saves the input: a message, then an abort.
func violation(_ message: String) -> Never {
    FileHandle.standardError.write(Data(("fuzz: " + message + "\n").utf8))
    abort()
}
