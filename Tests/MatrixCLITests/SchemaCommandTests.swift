import Foundation
import Testing
import MatrixModel
import TestSupport

/// The JSON Schema for projects whose matrices live outside this repository.
@Suite("matrix schema")
struct SchemaCommandTests {
    let release = Fixtures.packageDirectory.appendingPathComponent("matrices/release.json")

    @Test("matrix schema prints schema/matrix.schema.json; --out writes it, and refuses to replace it without --force")
    func schema() async throws {
        let file = try Data(contentsOf: Fixtures.packageDirectory.appendingPathComponent("schema/matrix.schema.json"))
        let printed = try await CommandHarness.run(["schema"])
        #expect(printed.status == 0 && Data(printed.stdout.utf8) == file)
        let dir = try MatrixBinary.scratchDirectory("matrix-schema")
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("schema/matrix.schema.json")
        let written = try await MatrixBinary.run(["schema", "--out", out.path])
        #expect(written.status == 0, "\(written.stderr)")
        #expect(try Data(contentsOf: out) == file)
        let again = try await MatrixBinary.run(["schema", "--out", out.path])
        #expect(again.status == 64 && again.stderr.contains("exists; pass --force"))
        #expect(try await MatrixBinary.run(["schema", "--out", out.path, "--force"]).status == 0)
    }
}
