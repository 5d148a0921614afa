import Foundation
import Testing
import TestSupport

/// Files that are not matrices: a clear I/O error or a located diagnostic, exit 65 or 66, never a hang (a hang
/// exceeds the time limit, generous for a loaded machine) or a crash, and nothing written.
@Suite("Bad input files", .timeLimit(.minutes(5)))
struct BadInputTests {
    func expectRefused(_ path: String, in dir: URL, status: Int32, message: String) async throws {
        let result = try await MatrixBinary.run(["run", path, "--out", dir.appendingPathComponent("out").path])
        #expect(result.status == status, "\(path): \(result.stderr)")
        #expect(result.stderr.contains(message), "\(path): \(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out").path))
    }

    @Test("a directory, a FIFO, a 100 MB file and a missing file are refused as unreadable (66)")
    func fileSystemOddities() async throws {
        let dir = try MatrixBinary.scratchDirectory("matrix-bad")
        defer { try? FileManager.default.removeItem(at: dir) }
        try await expectRefused(dir.path, in: dir, status: 66, message: "is a directory")
        let fifo = dir.appendingPathComponent("fifo.json").path
        #expect(mkfifo(fifo, 0o644) == 0)
        try await expectRefused(fifo, in: dir, status: 66, message: "is a FIFO")
        let huge = dir.appendingPathComponent("huge.json")
        #expect(FileManager.default.createFile(atPath: huge.path, contents: nil))
        let handle = try FileHandle(forWritingTo: huge)
        try handle.truncate(atOffset: 100 * 1024 * 1024)
        try handle.close()
        try await expectRefused(huge.path, in: dir, status: 66, message: "is larger than 64 MB")
        try await expectRefused(dir.appendingPathComponent("missing.json").path, in: dir, status: 66, message: "no such file")
    }

    @Test("an empty file, a BOM alone, invalid UTF-8 and deep nesting get located diagnostics (65)")
    func contentOddities() async throws {
        let dir = try MatrixBinary.scratchDirectory("matrix-bad")
        defer { try? FileManager.default.removeItem(at: dir) }
        let samples: [(String, Data, String)] = [
            ("empty.json", Data(), "empty.json:1:1: error: the file is empty"),
            ("bom.json", Data([0xEF, 0xBB, 0xBF]), "bom.json:1:1: error: the file is empty"),
            ("latin1.json", Data(#"{"name": ""#.utf8) + Data([0xE9]) + Data(#""}"#.utf8), "latin1.json:1:11: error: invalid UTF-8"),
            ("deep.json", Data(String(repeating: "[", count: 10_000).utf8), "deep.json:1:513: error: arrays and objects nest deeper than 512 levels"),
        ]
        for (name, data, message) in samples {
            try data.write(to: dir.appendingPathComponent(name))
            try await expectRefused(dir.appendingPathComponent(name).path, in: dir, status: 65, message: dir.path + "/" + message)
        }
    }

    @Test("a catalog that is a directory, a FIFO, empty or missing is a located matrix error (65)")
    func catalogOddities() async throws {
        let dir = try MatrixBinary.scratchDirectory("matrix-bad")
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("folder.storekit"), withIntermediateDirectories: true)
        #expect(mkfifo(dir.appendingPathComponent("fifo.storekit").path, 0o644) == 0)
        try Data().write(to: dir.appendingPathComponent("empty.storekit"))
        for (catalog, reason) in [("folder.storekit", "is a directory"), ("fifo.storekit", "is a FIFO"), ("missing.storekit", "no such file"),
                                  ("empty.storekit", "not a usable StoreKit configuration")] {
            let matrix = """
                {"schemaVersion": 1, "app": {"bundleId": "b"}, "catalog": "\(catalog)", "tiers": {}, "accounts": {"a": {}},
                 "cases": [{"id": "c", "kind": "restore", "account": "a", "steps": [{"action": "launch"}]}]}
                """
            let file = dir.appendingPathComponent("m-\(catalog).json")
            try matrix.write(to: file, atomically: true, encoding: .utf8)
            try await expectRefused(file.path, in: dir, status: 65, message: "error: ")
            let result = try await MatrixBinary.run(["validate", file.path])
            #expect(result.stderr.contains(":1:59: error:") && result.stderr.contains(reason), "\(catalog): \(result.stderr)")
        }
    }
}
