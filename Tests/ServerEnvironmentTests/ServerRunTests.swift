import EvidenceStore
import Foundation
import MatrixEngine
import MatrixModel
@testable import ServerEnvironment
import SignedData
import Signing
import TestSupport
import Testing

/// Runs matrices against in-process backends through the server environment, as `matrix run --env server` does.
@Suite("The server environment against a backend")
struct ServerRunTests {
    static let release: Matrix = {
        let file = try? MatrixFile.read(Fixtures.packageDirectory.appendingPathComponent("matrices/release.json").path)
        return file!.matrix!
    }()

    actor Sink: EvidenceSink {
        var records: [EvidenceRecord] = []
        func append(_ record: EvidenceRecord) async throws { records.append(record) }
    }

    static func settings(_ backend: TestBackend, delivery: DeliveryMode = .production, seed: UInt64 = 1, timeout: Duration = .seconds(10),
                         access: String? = nil, identity: UInt64 = 7) throws -> ServerSettings {
        try ServerSettings(notifyURL: LoopbackURL.parse(backend.notifyURL, option: "--notify-url", pickedPort: nil),
                           accessURL: LoopbackURL.parse(access ?? backend.accessURL, option: "--access-url", pickedPort: nil,
                                                        placeholders: LoopbackURL.accessPlaceholders),
                           delivery: delivery, seed: seed, timeout: timeout, runIdentity: identity)
    }

    static func run(_ matrix: Matrix, _ settings: ServerSettings, cases: [String]? = nil) async throws -> [EvidenceRecord] {
        let adapter = ServerAdapter(settings: settings)
        let context = RunContext(runID: "test", environment: "server", build: "test", device: "test", os: "test")
        let sink = Sink()
        let indices = cases.map { ids in matrix.cases.indices.filter { ids.contains(matrix.cases[$0].id) } } ?? Array(matrix.cases.indices)
        _ = try await Runner(matrix: matrix, adapter: adapter, context: context, jobs: 2).run(cases: indices, into: sink)
        return await sink.records
    }

    static func failing(_ records: [EvidenceRecord]) -> [String] {
        records.filter { $0.verdict != .pass }.map { "\($0.case)#\($0.step) \($0.verdict.rawValue): \($0.reason ?? "")" }
    }

    @Test("a backend that follows Apple's advice passes every step of the release matrix, told everything in order")
    func releaseMatrixPasses() async throws {
        let backend = try TestBackend(matrix: Self.release)
        let records = try await Self.run(Self.release, Self.settings(backend))
        #expect(records.count == Self.release.cases.map(\.steps.count).reduce(0, +))
        #expect(Self.failing(records) == [])
        let deliveries = records.compactMap(\.observed?.server).flatMap(\.deliveries)
        #expect(deliveries.count > 40)
        #expect(deliveries.allSatisfy { $0.attempts.map(\.sendAttemptResult) == ["SUCCESS"] })
        // What the accounts owned before the case reached the backend before the first step.
        let restore = try #require(records.first { $0.case == "restore/after-reinstall" && $0.step == 0 }?.observed?.server)
        #expect(restore.deliveries.map(\.name) == ["ONE_TIME_CHARGE"])
        #expect(restore.deliveries.map(\.origin) == ["prepared"])
        // The server's answer is the observation; the app's is kept beside it.
        let purchase = try #require(records.first { $0.case == "fresh-purchase/pro" && $0.step == 1 }?.observed)
        #expect(purchase.access == ["pro"] && purchase.server?.appAccess == ["pro"])
        #expect(purchase.server?.accessQueries.map(\.access) == [["pro"]])
        #expect(purchase.notObserved == ["balance"])
    }

    @Test("no two cases share a transaction id or a notificationUUID, and each account's purchases carry one appAccountToken")
    func identifiersAreUniqueAcrossCases() async throws {
        let backend = try TestBackend(matrix: Self.release)
        _ = try await Self.run(Self.release, Self.settings(backend))
        let received = backend.received
        let uuids = received.compactMap(\.notificationUUID)
        #expect(Set(uuids).count == uuids.count)
        let transactions = received.compactMap { $0.data?.signedTransactionInfo }.compactMap(Self.transaction)
        let byCase = Dictionary(grouping: transactions, by: { $0.transactionId ?? "" })
        #expect(byCase.values.allSatisfy { Set($0.map(\.productId)).count == 1 })
        let tokens = Set(transactions.filter { $0.inAppOwnershipType == "PURCHASED" && $0.transactionReason == "PURCHASE" }.compactMap(\.appAccountToken))
        #expect(tokens.count >= 20)
        #expect(tokens.allSatisfy { UUID(uuidString: $0) != nil && $0 == $0.lowercased() })
    }

    @Test("runs against one backend share no transaction id, notificationUUID or appAccountToken, also when their identities differ only in high bits",
          arguments: [[1, 1 | 1 << 40, 1 | 1 << 63, 1 | 7999 << 32] as [UInt64]])
    func identifiersAreUniqueAcrossRuns(_ identities: [UInt64]) async throws {
        let backend = try TestBackend(matrix: Self.release)
        for identity in identities {
            let records = try await Self.run(Self.release, Self.settings(backend, identity: identity), cases: ["fresh-purchase/pro", "renewal/plus-monthly"])
            // A backend that remembers every run still passes: each run's identifiers are new to it.
            #expect(Self.failing(records) == [], "identity \(identity)")
        }
        let received = backend.received
        let uuids = received.compactMap(\.notificationUUID)
        #expect(Set(uuids).count == uuids.count)
        let transactions = received.compactMap { $0.data?.signedTransactionInfo }.compactMap(Self.transaction)
        // Each run bought Pro and the monthly subscription once, and the subscription renewed: no id from one run in another.
        let idsByRun = Dictionary(grouping: transactions, by: { $0.appAccountToken ?? "" }).mapValues { Set($0.compactMap(\.transactionId)) }
        #expect(idsByRun.values.reduce(0) { $0 + $1.count } == Set(transactions.compactMap(\.transactionId)).count)
        let tokens = Set(transactions.compactMap(\.appAccountToken))
        #expect(tokens.count == identities.count * 2, "one token per account of each case of each run: \(tokens)")
        #expect(transactions.compactMap(\.transactionId).allSatisfy { $0.count <= 19 && Int64($0) != nil })
    }

    @Test("a run draws its identity from 64 random bits")
    func identitiesAreRandom() throws {
        let url = try LoopbackURL.parse("http://127.0.0.1:1/n", option: "--notify-url", pickedPort: nil)
        let identities = try (0..<64).map { _ in try ServerSettings(notifyURL: url, accessURL: url).runIdentity }
        #expect(Set(identities).count == 64)
        // Over 64 draws every bit is set in one and clear in another (the chance that it is not is 2^-57).
        let all = identities.reduce(UInt64.max, &)
        let any = identities.reduce(UInt64(0), |)
        #expect(all == 0 && any == .max)
    }

    static func transaction(_ jws: String) -> JWSTransactionDecodedPayloadView? {
        guard let payload = try? JWS.decodePayload(jws) else { return nil }
        return try? JSONDecoder().decode(JWSTransactionDecodedPayloadView.self, from: payload)
    }
}

/// The transaction fields these tests read.
struct JWSTransactionDecodedPayloadView: Decodable {
    var transactionId: String?
    var productId: String?
    var appAccountToken: String?
    var inAppOwnershipType: String?
    var transactionReason: String?
}
