import Foundation
import Testing
import TestSupport

/// The loader and the JSON Schema judge the same samples the same way: `matrix validate` here, the `jsonschema`
/// package in `scripts/check-schema.py` (run by `.ci/run`), both from `SchemaSamples/verdicts.json`.
@Suite("Schema samples: matrix validate agrees with schema/matrix.schema.json")
struct SchemaSampleTests {
    struct Sample: Decodable, Sendable, CustomTestStringConvertible {
        var file: String
        /// `valid` (no diagnostic), `warning` (only warnings), `invalid` (an error with `code`).
        var verdict: String
        var code: String?
        var testDescription: String { "\(file) (\(verdict))" }
    }

    struct Verdicts: Decodable {
        var samples: [Sample]
    }

    static let directory = Fixtures.packageDirectory.appendingPathComponent("Tests/MatrixCLITests/SchemaSamples")

    static let samples: [Sample] = {
        guard let data = try? Data(contentsOf: directory.appendingPathComponent("verdicts.json")),
              let verdicts = try? JSONDecoder().decode(Verdicts.self, from: data) else { return [] }
        return verdicts.samples
    }()

    @Test("every sample file is listed in verdicts.json, with valid, warning and invalid samples all present")
    func listIsComplete() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path).filter { $0 != "verdicts.json" }
        #expect(Set(files) == Set(Self.samples.map(\.file)))
        #expect(Set(Self.samples.map(\.verdict)) == ["valid", "warning", "invalid"])
        #expect(Self.samples.allSatisfy { $0.verdict == "valid" || $0.code != nil })
    }

    @Test("matrix validate gives each sample its verdict", arguments: samples)
    func loaderVerdict(_ sample: Sample) async throws {
        let path = Self.directory.appendingPathComponent(sample.file).path
        let result = try await CommandHarness.run(["validate", "--format", "json", path])
        // Coverage (MX024: a product or tier no case tests) is no part of the schema; the samples are not release matrices.
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
            .filter { $0["code"] as? String != "MX024" }
        let severities = rows.compactMap { $0["severity"] as? String }
        let codes = rows.compactMap { $0["code"] as? String }
        switch sample.verdict {
        case "valid":
            #expect(rows.isEmpty, "\(rows)")
            #expect(result.status == 0)
        case "warning":
            #expect(!severities.isEmpty && severities.allSatisfy { $0 == "warning" }, "\(rows)")
            #expect(codes.contains(sample.code ?? ""), "\(rows)")
            #expect(result.status == 0)
        default:
            #expect(zip(severities, codes).contains { $0 == "error" && $1 == sample.code }, "\(rows)")
            #expect(result.status == 65)
        }
    }
}
