import Foundation
import Testing
import SignedData
import TestSupport

/// The built binary: a run archived with the default name, verified, and checked with the exported root.
@Suite("End to end: matrix archive, verify and pki")
struct VerifyEndToEndTests {
    @Test("archive writes <run-id>.tar.gz that verify accepts; the exported root verifies the run, Apple's does not")
    func archiveVerifyExport() async throws {
        let directory = try MatrixBinary.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let matrix = Fixtures.packageDirectory.appendingPathComponent("matrices/release.json").path
        #expect(try await MatrixBinary.run(["run", matrix, "--out", "reports", "--quiet"], in: directory).status == 0)
        let run = try #require(MatrixBinary.runDirectories(under: directory.appendingPathComponent("reports")).first)

        let archived = try await MatrixBinary.run(["archive", run.path], in: directory)
        #expect(archived.status == 0, "\(archived.stderr)")
        let archive = directory.appendingPathComponent(run.lastPathComponent + ".tar.gz")
        #expect(FileManager.default.fileExists(atPath: archive.path))
        let verified = try await MatrixBinary.run(["verify", archive.path, "--quiet"], in: directory)
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stdout.isEmpty)
        #expect(verified.stderr.contains("is unaltered"))

        let pem = try await MatrixBinary.run(["pki", "export-root", "--pem"], in: directory)
        #expect(pem.status == 0)
        #expect(try X509Certificate(pemRepresentation: pem.stdout) == SimulatorPKI.default.root)
        try pem.stdout.write(to: directory.appendingPathComponent("root.pem"), atomically: true, encoding: .utf8)
        #expect(try await MatrixBinary.run(["verify", run.path, "--root", "root.pem", "--quiet"], in: directory).status == 0)
        #expect(try await MatrixBinary.run(["verify", run.path, "--root", "apple", "--quiet"], in: directory).status == 1)
    }
}
