import Foundation
@testable import SignedData
import Signing
@testable import TestSupport
import Testing

/// The verified-chain cache of ``SignedDataVerifier``: a hit skips only the chain check, never the date, the
/// signature or the exact certificates.
@Suite("Verified chain cache")
struct VerifiedChainCacheTests {
    static let bundleId = "com.example.storekitmatrix"
    /// 2026-01-01T00:00:00Z in ms.
    static let inside = 1_767_225_600_000.0
    /// 9999-12-31T23:59:59Z in ms: every simulator certificate's notAfter, the first second at which OpenSSL
    /// finds the chain expired.
    static let simulatorNotAfter = 253_402_300_799_000.0
    /// 2020-01-01T00:00:00Z in ms: the simulator chain's first valid second.
    static let simulatorNotBefore = 1_577_836_800_000.0

    func transaction(signedDate: Double, bundleId: String = bundleId) throws -> Data {
        try Fixtures.json(["bundleId": bundleId, "environment": "Sandbox", "signedDate": signedDate, "transactionId": "1"])
    }

    func verifier(roots: [X509Certificate], capacity: Int = 64) throws -> SignedDataVerifier {
        try SignedDataVerifier(rootCertificates: roots, bundleId: nil, appAppleId: nil, environment: "Sandbox",
                               chainCacheCapacity: capacity, now: { Fixtures.fixedNow })
    }

    func code(_ body: () throws -> VerifiedSignedData) -> String {
        do {
            _ = try body()
            return "OK"
        } catch let error as SignedDataError {
            return error.code.rawValue
        } catch {
            return "\(error)"
        }
    }

    @Test("A cached chain is not trusted outside its validity interval, to the second, on either side")
    func notTrustedOutsideInterval() throws {
        let pki = try SimulatorPKI.default
        let verifier = try verifier(roots: [pki.root])
        #expect(try verifier.verifyAndDecodeTransaction(pki.sign(payload: transaction(signedDate: Self.inside))).isSignatureVerified)
        #expect(verifier.chainCache.statistics.count == 1)

        let cases: [(signedDate: Double, expected: String)] = [
            (Self.simulatorNotAfter, "VERIFICATION_FAILURE"),                // notAfter itself
            (Self.simulatorNotAfter + 999, "VERIFICATION_FAILURE"),          // within notAfter's second
            (253_402_387_200_000, "VERIFICATION_FAILURE"),                    // the year 10000
            (Self.simulatorNotBefore - 1, "VERIFICATION_FAILURE"),           // the last ms before notBefore
            (Self.simulatorNotAfter - 1, "OK"),                               // the second before notAfter
            (Self.simulatorNotBefore, "OK"),
        ]
        for (signedDate, expected) in cases {
            let jws = try pki.sign(payload: transaction(signedDate: signedDate))
            #expect(code { try verifier.verifyAndDecodeTransaction(jws) } == expected, "signedDate \(signedDate)")
            // A fresh verifier, without any cache, agrees.
            #expect(code { try self.verifier(roots: [pki.root], capacity: 0).verifyAndDecodeTransaction(jws) } == expected)
        }
        let statistics = verifier.chainCache.statistics
        #expect(statistics.hits == 2)
        #expect(statistics.misses == 5)
    }

    @Test("A hit still checks the JWS's own signature")
    func hitChecksSignature() throws {
        let pki = try SimulatorPKI.default
        let verifier = try verifier(roots: [pki.root])
        _ = try verifier.verifyAndDecodeTransaction(pki.sign(payload: transaction(signedDate: Self.inside)))
        var parts = try pki.sign(payload: transaction(signedDate: Self.inside + 1)).split(separator: ".").map(String.init)
        parts[1] = Base64URL.encode(try transaction(signedDate: Self.inside + 2))
        #expect(code { try verifier.verifyAndDecodeTransaction(parts.joined(separator: ".")) } == "VERIFICATION_FAILURE")
        #expect(verifier.chainCache.statistics.hits == 1)
    }

    @Test("A different chain is not matched: each verified chain answers only for its own exact x5c bytes")
    func differentChainNotMatched() throws {
        let simulator = try SimulatorPKI.default
        let apple = try Fixtures.appleTestPKI()
        let verifier = try verifier(roots: [simulator.root, apple.root])
        let payload = try transaction(signedDate: 1_735_689_600_000)

        let fromSimulator = try verifier.verifyAndDecodeTransaction(simulator.sign(payload: payload))
        let fromApple = try verifier.verifyAndDecodeTransaction(apple.sign(payload: payload))
        #expect(verifier.chainCache.statistics.hits == 0)
        #expect(verifier.chainCache.statistics.count == 2)
        for _ in 0 ..< 2 {
            let again = try verifier.verifyAndDecodeTransaction(apple.sign(payload: payload))
            guard case let .verified(chain, _) = again.signatureCheck, case let .verified(first, _) = fromApple.signatureCheck else {
                Issue.record("not verified")
                return
            }
            #expect(chain == first)
            #expect(chain[0] == apple.leaf)
        }
        guard case let .verified(simulatorChain, _) = fromSimulator.signatureCheck else {
            Issue.record("not verified")
            return
        }
        #expect(simulatorChain[0] == simulator.leaf)
        #expect(verifier.chainCache.statistics.hits == 2)

        // The simulator leaf and intermediate with another certificate in the root position: other bytes, so a
        // miss and a full check (which ignores x5c[2], as Apple's libraries do).
        let otherRoot = try JWS.sign(payload: payload, x5c: [simulator.leaf, simulator.intermediate, apple.root], key: simulator.leafKey)
        #expect(try verifier.verifyAndDecodeTransaction(otherRoot).isSignatureVerified)
        #expect(verifier.chainCache.statistics.hits == 2)
        #expect(verifier.chainCache.statistics.count == 3)

        // Apple's test leaf presented under the simulator intermediate: never issued by it, so it fails even
        // though the simulator intermediate and root are cached in another chain.
        let forged = try JWS.sign(payload: payload, x5c: [apple.leaf, simulator.intermediate, simulator.root], key: apple.leafKey)
        #expect(code { try verifier.verifyAndDecodeTransaction(forged) } == "VERIFICATION_FAILURE")
        #expect(verifier.chainCache.statistics.hits == 2)
    }

    @Test("The cache is bounded: with capacity 1 two alternating chains always miss, and capacity 0 never stores")
    func bounded() throws {
        let simulator = try SimulatorPKI.default
        let apple = try Fixtures.appleTestPKI()
        let payload = try transaction(signedDate: 1_735_689_600_000)
        let one = try verifier(roots: [simulator.root, apple.root], capacity: 1)
        for pki in [simulator, apple, simulator, apple] {
            _ = try one.verifyAndDecodeTransaction(pki.sign(payload: payload))
        }
        #expect(one.chainCache.statistics.hits == 0)
        #expect(one.chainCache.statistics.count == 1)
        _ = try one.verifyAndDecodeTransaction(apple.sign(payload: payload))
        #expect(one.chainCache.statistics.hits == 1)

        let none = try verifier(roots: [simulator.root], capacity: 0)
        for _ in 0 ..< 3 {
            #expect(try none.verifyAndDecodeTransaction(simulator.sign(payload: payload)).isSignatureVerified)
        }
        #expect(none.chainCache.statistics.count == 0)
        #expect(none.chainCache.statistics.hits == 0)
    }

    @Test("Concurrent verifications share one cache safely")
    func concurrent() async throws {
        let pki = try SimulatorPKI.default
        let verifier = try verifier(roots: [pki.root])
        let tasks = 8
        let perTask = 40
        let jws = try (0 ..< perTask).map { try pki.sign(payload: transaction(signedDate: Self.inside + Double($0))) }
        let verified = await withTaskGroup(of: Int.self) { group in
            for _ in 0 ..< tasks {
                group.addTask {
                    jws.reduce(0) { count, item in count + ((try? verifier.verifyAndDecodeTransaction(item).isSignatureVerified) == true ? 1 : 0) }
                }
            }
            return await group.reduce(0, +)
        }
        #expect(verified == tasks * perTask)
        let statistics = verifier.chainCache.statistics
        #expect(statistics.hits + statistics.misses == tasks * perTask)
        #expect(statistics.misses <= tasks)
        #expect(statistics.count == 1)
    }

    @Test("The key covers each certificate's length, so bytes moved between certificates give another key")
    func keyIsLengthPrefixed() {
        let a = VerifiedChainCache.key(forDER: [[1, 2], [3], [4]])
        let b = VerifiedChainCache.key(forDER: [[1], [2, 3], [4]])
        #expect(a.count == 32)
        #expect(a != b)
        #expect(a == VerifiedChainCache.key(forDER: [[1, 2], [3], [4]]))
    }
}
