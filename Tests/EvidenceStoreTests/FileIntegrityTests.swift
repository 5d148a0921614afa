import EvidenceArchive
@testable import EvidenceStore
import Foundation
import Testing

@Suite("File integrity")
struct FileIntegrityTests {
    func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("integrity-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try Data("one".utf8).write(to: url.appendingPathComponent("a.txt"))
        try Data("two".utf8).write(to: url.appendingPathComponent("sub/b.txt"))
        try Data("{}".utf8).write(to: url.appendingPathComponent("run.json"))
        return url
    }

    @Test("Every file is ok against its own digests; run.json can be ignored")
    func clean() throws {
        let url = try directory()
        defer { try? FileManager.default.removeItem(at: url) }
        var digests = try FileIntegrity.digests(of: url)
        #expect(Set(digests.keys) == ["a.txt", "sub/b.txt", "run.json"])
        #expect(digests["a.txt"] == "7692c3ad3540bb803c020b3aee66cd8887123234ea0c6e7143c0add73ff431ed")
        digests.removeValue(forKey: "run.json")
        let findings = FileIntegrity.check(directory: url, expected: digests, ignoring: ["run.json"])
        #expect(findings.map(\.path) == ["a.txt", "sub/b.txt"])
        #expect(findings.allSatisfy { $0.status == .ok })
    }

    @Test("Altered, missing, extra and symbolic-link entries are each reported")
    func problems() throws {
        let url = try directory()
        defer { try? FileManager.default.removeItem(at: url) }
        let digests = try FileIntegrity.digests(of: url)
        try Data("One".utf8).write(to: url.appendingPathComponent("a.txt"))
        try FileManager.default.removeItem(at: url.appendingPathComponent("sub/b.txt"))
        try Data("new".utf8).write(to: url.appendingPathComponent(".hidden"))
        try FileManager.default.createSymbolicLink(atPath: url.appendingPathComponent("link").path, withDestinationPath: "/etc/hostname")
        let findings = FileIntegrity.check(directory: url, expected: digests)
        let byPath = Dictionary(uniqueKeysWithValues: findings.map { ($0.path, $0.status) })
        #expect(byPath == [".hidden": .extra, "a.txt": .altered, "sub/b.txt": .missing, "link": .notRegularFile, "run.json": .ok])
        #expect(findings.first { $0.path == "a.txt" }?.expected == digests["a.txt"])
        #expect(throws: RunArchiveError.self) { try FileIntegrity.digests(of: url) }
    }
}
