import Foundation
import Testing
@testable import AppStoreAPI
@testable import MatrixModel
@testable import SignedData
@testable import TestSupport

/// Every signed item in an answer is verified: chain to the configured root, bundle id, environment.
@Suite("Verification of signed data in answers")
struct VerificationTests {
    func transactionInfo(_ jws: String, environment: SignedEnvironment = .sandbox, credentials: AppStoreCredentials? = nil) async throws(AppStoreAPIError) -> SignedTransaction {
        let server = StubHTTPServer([.json(200, object: ["signedTransactionInfo": jws])])
        do {
            return try await APIFixtures.serverClient(server, environment: environment, credentials: credentials).transactionInfo(transactionId: "1")
        } catch let error as AppStoreAPIError {
            throw error
        } catch {
            throw AppStoreAPIError(.configuration, "fixture: \(error)")
        }
    }

    @Test("A transaction for another bundle id fails with INVALID_APP_IDENTIFIER")
    func wrongBundle() async throws {
        let error = await #expect(throws: AppStoreAPIError.self) {
            try await transactionInfo(try APIFixtures.signedTransaction(["bundleId": "com.other"]))
        }
        #expect(error?.code == .verificationFailed)
        #expect(error?.message.contains("INVALID_APP_IDENTIFIER") == true)
    }

    @Test("A Production transaction is refused by a Sandbox client with INVALID_ENVIRONMENT")
    func wrongEnvironment() async throws {
        let error = await #expect(throws: AppStoreAPIError.self) {
            try await transactionInfo(try APIFixtures.signedTransaction(["environment": "Production"]))
        }
        #expect(error?.code == .verificationFailed)
        #expect(error?.message.contains("INVALID_ENVIRONMENT") == true)
    }

    @Test("Data signed by a chain that does not end at the configured root fails verification")
    func untrustedChain() async throws {
        let payload = try JSONSerialization.data(withJSONObject: ["bundleId": "com.example", "environment": "Sandbox", "signedDate": 1_698_148_900_000])
        let foreign = try SimulatorPKI.default.sign(payload: payload)
        let error = await #expect(throws: AppStoreAPIError.self) { try await transactionInfo(foreign) }
        #expect(error?.code == .verificationFailed)
        #expect(error?.message.contains("VERIFICATION_FAILURE") == true)
    }

    @Test("A tampered payload fails verification")
    func tampered() async throws {
        let parts = try APIFixtures.signedTransaction().split(separator: ".").map(String.init)
        let other = try APIFixtures.signedTransaction(["productId": "com.example.free"]).split(separator: ".").map(String.init)
        let error = await #expect(throws: AppStoreAPIError.self) { try await transactionInfo([parts[0], other[1], parts[2]].joined(separator: ".")) }
        #expect(error?.code == .verificationFailed)
    }

    @Test("By default the trust anchor is Apple Root CA - G3, so test-PKI data is refused")
    func defaultRootIsApple() throws {
        let decoder = try SignedDataDecoder(environment: .sandbox, bundleId: "com.example", appAppleId: nil)
        #expect(decoder.verifier.rootCertificates == [try AppleRootCertificates.rootCAG3])
        #expect(throws: AppStoreAPIError.self) { try decoder.transaction(try APIFixtures.signedTransaction()) }
    }

    @Test("A Production client needs the app's Apple id to verify")
    func productionNeedsAppAppleId() throws {
        let server = StubHTTPServer([.json(200, "{}")])
        let error = #expect(throws: AppStoreAPIError.self) { try APIFixtures.serverClient(server, environment: .production) }
        #expect(error?.code == .configuration)
        #expect(error?.message.contains("APP_STORE_APP_APPLE_ID") == true)
        let credentials = try AppStoreCredentials(issuerId: "i", connectKey: APIFixtures.apiKey(), bundleId: "com.example", appAppleId: 1234)
        #expect(throws: Never.self) { try APIFixtures.serverClient(server, environment: .production, credentials: credentials) }
    }

    @Test("A client without a bundle id is refused: the token needs bid")
    func needsBundleId() throws {
        let error = #expect(throws: AppStoreAPIError.self) {
            try APIFixtures.serverClient(StubHTTPServer([.json(200, "{}")]), credentials: APIFixtures.credentials(bundleId: nil))
        }
        #expect(error?.code == .configuration)
        #expect(error?.message.contains("bid") == true)
    }
}
