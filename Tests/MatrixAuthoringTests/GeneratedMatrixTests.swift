import FaultScoring
import Foundation
import LocalEnvironment
import MatrixAuthoring
import MatrixJSON
import MatrixModel
import ReferenceApp
import TestSupport
import Testing

/// `matrix init`'s promise, in process: for every real `.storekit` fixture, and three small synthetic catalogs,
/// the generated matrix loads without a diagnostic, passes on the local environment, and catches every app fault
/// the catalog can show.
@Suite("Generated matrices over real catalogs")
struct GeneratedMatrixTests {
    static let fixtures: [String] = (try? Fixtures.storeKitFileNames()) ?? []
    static let catalogs: [String] = fixtures + synthetic.keys.sorted()

    /// Small catalogs the fixtures lack: a single product of each kind that grants access, alone.
    static let synthetic: [String: String] = [
        "non-renewing-only": #"{"version": {"major": 4, "minor": 0}, "nonRenewingSubscriptions": [{"productID": "com.app.pass", "type": "NonRenewingSubscription", "localizations": [{"locale": "en_US", "displayName": "Month Pass"}]}]}"#,
        "non-consumable-only": #"{"version": {"major": 4, "minor": 0}, "products": [{"productID": "com.app.pro", "type": "NonConsumable", "familyShareable": true}]}"#,
        "one-subscription": #"{"version": {"major": 4, "minor": 0}, "subscriptionGroups": [{"id": "1", "name": "Pro", "subscriptions": [{"productID": "com.app.pro.weekly", "type": "RecurringSubscription", "recurringSubscriptionPeriod": "P1W", "groupNumber": 1}]}]}"#,
    ]

    /// Generates the matrix for a fixture (or a ``synthetic`` catalog) and loads it as `matrix run` would.
    static func generatedMatrix(_ fileName: String) throws -> (Matrix?, [Diagnostic], MatrixGenerator.Output) {
        let bytes = try synthetic[fileName].map { Array($0.utf8) } ?? Fixtures.bytes("storekit/" + fileName)
        let (catalog, catalogDiagnostics) = StoreKitConfigurationReader.read(bytes, file: fileName)
        let configuration = try #require(catalog, "the fixture must read: \(catalogDiagnostics.map(\.rendered))")
        let output = try MatrixGenerator.generate(configuration, options: .init(catalogReference: fileName))
        let loaded = MatrixLoader.load(output.bytes, file: "generated.json") { path in
            path == fileName ? .contents(bytes, displayPath: fileName) : .unreadable(reason: "no such file")
        }
        return (loaded.matrix, loaded.diagnostics, output)
    }

    @Test("there are 17 fixtures to generate from")
    func fixtureCount() {
        #expect(Self.fixtures.count == 17)
    }

    @Test("the generated matrix loads without a diagnostic, passes on local and catches every applicable fault",
          arguments: catalogs)
    func generatedMatrixScoresFull(_ fileName: String) async throws {
        let (loaded, diagnostics, output) = try Self.generatedMatrix(fileName)
        #expect(diagnostics.isEmpty, "\(diagnostics.map(\.rendered).joined(separator: "\n"))")
        let matrix = try #require(loaded)
        #expect(matrix.cases.count == output.caseCount)
        let score = try await HeavyWork.run { try await FaultScorer.score(matrix, jobs: 2) }
        #expect(score.referenceProblem == nil,
                "reference fails at \(score.referenceProblem.map { "\($0.case) #\($0.step): \($0.reason ?? "")" } ?? "")")
        for result in score.results where result.applicable {
            #expect(result.caughtBy != nil, "\(fileName): \(result.fault) is applicable but missed")
        }
        #expect(score.percent == 100)
    }

    @Test("a fault judged not applicable leaves the generated matrix's every step passing (the rule is honest)",
          arguments: catalogs)
    func notApplicableFaultsAreInvisible(_ fileName: String) async throws {
        let (loaded, _, _) = try Self.generatedMatrix(fileName)
        let matrix = try #require(loaded)
        for fault in AppFault.allCases where fault.notApplicableReason(in: matrix) != nil {
            let problem = try await HeavyWork.run { try await FaultScorer.firstProblem(matrix, fault: fault, jobs: 2) }
            #expect(problem == nil, "\(fileName): \(fault) is called not applicable, but \(problem.map { "\($0.case) #\($0.step)" } ?? "") catches it")
        }
    }
}
