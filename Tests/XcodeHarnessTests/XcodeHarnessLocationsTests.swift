import EvidenceStore
import Foundation
import HarnessCore
import TestSupport
import Testing
@testable import XcodeHarness

/// In a test hosted by an app the working directory is not the project: the matrix comes from the test bundle,
/// the evidence goes where the host can write.
@Suite("Where the Xcode environment reads the matrix and writes the evidence")
struct XcodeHarnessLocationsTests {
    @Test("an absolute matrix path is used as given; a relative one is found in a bundle by its path or by its file name")
    func matrixInBundle() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("xcode-locations-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("matrices"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try Data("{}".utf8).write(to: root.appendingPathComponent("matrices/nested.json"))
        try Data("{}".utf8).write(to: root.appendingPathComponent("flat.json"))
        let bundle = try #require(Bundle(path: root.path))
        #expect(try XcodeHarnessLocations.matrixFile("/absolute/release.json", bundles: []) == "/absolute/release.json")
        #expect(try XcodeHarnessLocations.matrixFile("matrices/nested.json", bundles: [bundle]).hasSuffix("/matrices/nested.json"))
        #expect(try XcodeHarnessLocations.matrixFile("matrices/flat.json", bundles: [bundle]) == root.appendingPathComponent("flat.json").path)
        let error = try #require(throws: AppHarnessError.self) { try XcodeHarnessLocations.matrixFile("matrices/missing.json", bundles: [bundle]) }
        #expect(error.message.contains("missing.json") && error.message.contains("resources"), "\(error)")
    }

    @Test("a relative reports directory goes under the test host's temporary directory; an absolute one stays")
    func reportsDirectory() {
        let temporary = URL(fileURLWithPath: "/private/tmp/host")
        #expect(XcodeHarnessLocations.reportsDirectory("reports", temporaryDirectory: temporary) == "/private/tmp/host/reports")
        #expect(XcodeHarnessLocations.reportsDirectory("/evidence", temporaryDirectory: temporary) == "/evidence")
        #expect(XcodeHarnessLocations.reportsDirectory(nil, temporaryDirectory: temporary) == nil)
    }

    @Test("a matrix copied flat into a test bundle finds its catalog beside it, by the catalog's file name")
    func catalogBesideMatrix() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("xcode-flat-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        // The repository's matrix names "Products.storekit" beside it; here it names it as examples/app-repo does.
        var text = try String(contentsOf: Fixtures.packageDirectory.appendingPathComponent("matrices/release.json"), encoding: .utf8)
        text = text.replacingOccurrences(of: #""catalog": "Products.storekit""#, with: #""catalog": "../App/Products.storekit""#)
        #expect(text.contains("../App/Products.storekit"))
        try Data(text.utf8).write(to: root.appendingPathComponent("release.json"))
        try FileManager.default.copyItem(at: Fixtures.packageDirectory.appendingPathComponent("matrices/Products.storekit"),
                                         to: root.appendingPathComponent("Products.storekit"))
        let path = root.appendingPathComponent("release.json").path
        // Without the bundle's layout in mind the catalog is where the matrix says, and missing.
        #expect(try MatrixFile.read(path).matrix == nil)
        let flat = try MatrixFile.read(path, catalogBesideMatrix: true)
        #expect(flat.matrix != nil, "\(flat.diagnostics.map(\.rendered))")
        #expect(flat.catalogBytes == [UInt8](try Data(contentsOf: root.appendingPathComponent("Products.storekit"))))
    }
}
