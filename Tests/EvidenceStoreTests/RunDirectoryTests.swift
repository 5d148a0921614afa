import Foundation
import Testing
@testable import EvidenceStore
@testable import FileIO
@testable import TestSupport

@Suite("Run directory")
struct RunDirectoryTests {
    @Test("Build strings become file-system-safe slugs", arguments: [
        ("1.4 (212)", "1.4-212"),
        ("local", "unspecified"),
        ("LOCAL", "unspecified"),
        ("", "unspecified"),
        ("   ", "unspecified"),
        ("2.0-beta.1 (Build 45)", "2.0-beta.1-Build-45"),
        ("../../etc/passwd", "etc-passwd"),
        ("ünïcode 1", "n-code-1"),
        ("()", "unspecified"),
        ("release_7", "release_7"),
    ])
    func buildSlug(build: String, slug: String) {
        #expect(RunDirectory.buildSlug(build) == slug)
    }

    @Test("A slug is at most 64 characters")
    func longSlug() {
        let slug = RunDirectory.buildSlug(String(repeating: "a", count: 100))
        #expect(slug.count == 64)
    }

    @Test("Creating a run makes <root>/<environment>/<build slug>/<run id>/")
    func layout() throws {
        let root = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: root) }
        let directory = try RunDirectory.create(root: root.appendingPathComponent("reports"), environment: "sandbox",
                                                build: "1.4 (212)", runID: "run-1")
        let expected = root.appendingPathComponent("reports/sandbox/1.4-212/run-1").standardizedFileURL
        #expect(directory.url.path == expected.path)
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: expected.path, isDirectory: &isDirectory) && isDirectory.boolValue)
        #expect(directory.manifestURL.lastPathComponent == "run.json")
        #expect(directory.evidenceURL.lastPathComponent == "evidence.jsonl")
    }

    @Test("An existing run directory is never overwritten")
    func refusesOverwrite() throws {
        let root = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: root) }
        let first = try RunDirectory.create(root: root, environment: "local", build: "local", runID: "run-1")
        let kept = first.url.appendingPathComponent("evidence.jsonl")
        try Data("keep me\n".utf8).write(to: kept)
        let error = try #require(throws: EvidenceWriteError.self) {
            try RunDirectory.create(root: root, environment: "local", build: "", runID: "run-1")
        }
        #expect(error.code == .runDirectoryExists)
        #expect(error.message.contains("already exists"))
        #expect(error.message.contains("choose another run id"))
        #expect(try String(contentsOf: kept, encoding: .utf8) == "keep me\n")
    }

    @Test("A run directory appears whole: its first files are written in a hidden staging directory, which a failure removes")
    func appearsWhole() throws {
        struct Refused: Error {}
        let root = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: root) }
        let parent = root.appendingPathComponent("local/unspecified")
        var seenWhilePreparing: [String] = []
        let run = try RunDirectory.create(root: root, environment: "local", build: "", runID: "run-1") { staging in
            try staging.createEmptyEvidence()
            seenWhilePreparing = try FileManager.default.contentsOfDirectory(atPath: parent.path)
        }
        #expect(seenWhilePreparing == [".run-1.new"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent.path) == ["run-1"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: run.url.path) == ["evidence.jsonl"])
        #expect(throws: Refused.self) {
            try RunDirectory.create(root: root, environment: "local", build: "", runID: "run-2") { _ in throw Refused() }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent.path) == ["run-1"])
    }

    @Test("Run ids and environments that cannot name a directory are refused", arguments: [
        ("local", "a/b"), ("local", ".."), ("local", ""), ("a/b", "run"), (".", "run"),
    ])
    func invalidComponents(environment: String, runID: String) throws {
        let root = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: root) }
        let error = try #require(throws: EvidenceWriteError.self) {
            try RunDirectory.create(root: root, environment: environment, build: "1", runID: runID)
        }
        #expect(error.code == .invalidPathComponent)
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path).isEmpty)
    }

    @Test("A root that is a file cannot hold runs")
    func rootIsAFile() throws {
        let root = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent("reports")
        try Data().write(to: file)
        let error = try #require(throws: EvidenceWriteError.self) {
            try RunDirectory.create(root: file, environment: "local", build: "1", runID: "run")
        }
        #expect(error.code == .cannotCreateDirectory)
        #expect(error.message.contains("\(file.path) is a file, not a directory"), "\(error.message)")
        #expect(!error.message.contains("NSCocoaErrorDomain"))
    }

    @Test("File digests cover every other file, by relative path, leaving out run.json and hidden files")
    func fileDigests() throws {
        let root = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: root) }
        let directory = try RunDirectory.create(root: root, environment: "local", build: "", runID: "run")
        try Data("abc".utf8).write(to: directory.url.appendingPathComponent("evidence.jsonl"))
        try Data("{}".utf8).write(to: directory.url.appendingPathComponent("run.json"))
        try Data("tmp".utf8).write(to: directory.url.appendingPathComponent(".run.json.tmp"))
        try FileManager.default.createDirectory(at: directory.url.appendingPathComponent("attachments"), withIntermediateDirectories: true)
        try Data().write(to: directory.url.appendingPathComponent("attachments/empty.txt"))
        let digests = try directory.fileDigests()
        #expect(digests == [
            "evidence.jsonl": "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
            "attachments/empty.txt": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        ])
    }

    @Test("Writing a report replaces the file atomically and leaves no temporary file")
    func atomicWrite() throws {
        let root = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: root) }
        let directory = try RunDirectory.create(root: root, environment: "local", build: "", runID: "run")
        try directory.write(Data("first".utf8), named: "summary.md")
        try directory.write(Data("second".utf8), named: "summary.md")
        #expect(try String(contentsOf: directory.url.appendingPathComponent("summary.md"), encoding: .utf8) == "second")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["summary.md"])
    }
}
