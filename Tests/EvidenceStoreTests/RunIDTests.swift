import Dispatch
@testable import EvidenceStore
@testable import FileIO
import Foundation
@testable import TestSupport
import Testing
import Threading

/// Runs sharing a reports directory never fail because they drew the same run id: creation is atomic, and the
/// one that loses draws again.
@Suite("Run ids")
struct RunIDTests {
    @Test("A run id is the start second and 32 random bits")
    func format() throws {
        let id = RunDirectory.makeRunID(now: Date(timeIntervalSince1970: 1_764_420_590))
        #expect(id.hasPrefix("20251129T124950Z-"))
        let random = id.dropFirst("20251129T124950Z-".count)
        #expect(random.count == 8 && random.allSatisfy(\.isHexDigit), "\(id)")
        let many = Set((0..<2000).map { _ in RunDirectory.makeRunID(now: Date(timeIntervalSince1970: 0)) })
        #expect(many.count == 2000, "2000 ids of one second collide with 16 random bits almost surely, not with 32")
    }

    @Test("An id another run took is drawn again; the prepared manifest gets the id used")
    func redraw() throws {
        let root = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: root) }
        _ = try RunDirectory.create(root: root, environment: "local", build: "", runID: "taken")
        let draws = Locked(["taken", "taken", "free"])
        var prepared: [String] = []
        let run = try RunDirectory.createNew(root: root, environment: "local", build: "", makeID: { draws.withLock { $0.removeFirst() } }) { _, id in
            prepared.append(id)
        }
        #expect(run.url.lastPathComponent == "free")
        #expect(prepared == ["free"], "nothing is prepared for an id that is taken")
    }

    @Test("Eight runs drawing the same id at once all start, in eight directories")
    func concurrent() throws {
        let root = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: root) }
        let created = Locked<[String]>([])
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            let first = Locked(true)
            do {
                let run = try RunDirectory.createNew(root: root, environment: "local", build: "", makeID: {
                    first.withLock { isFirst in
                        defer { isFirst = false }
                        return isFirst ? "20261201T120000Z-0000" : RunDirectory.makeRunID()
                    }
                }) { staging, _ in try staging.createEmptyEvidence() }
                created.withLock { $0.append(run.url.lastPathComponent) }
            } catch {
                failures.withLock { $0.append("\(index): \(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        let names = created.withLock { $0 }
        #expect(Set(names).count == 8)
        #expect(names.filter { $0 == "20261201T120000Z-0000" }.count == 1)
    }

    @Test("A run id that is given is never replaced: taken, it is an error")
    func givenTaken() throws {
        let root = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: root) }
        _ = try RunDirectory.create(root: root, environment: "local", build: "", runID: "nightly-7")
        let error = #expect(throws: EvidenceWriteError.self) {
            try RunDirectory.createNew(root: root, environment: "local", build: "", runID: "nightly-7") { _, _ in }
        }
        #expect(error?.code == .runDirectoryExists)
    }

    @Test("--run-id values", arguments: [
        ("nightly-2026.12.01_7", true), ("a", true), (String(repeating: "a", count: 64), true),
        ("", false), (".hidden", false), ("-x", false), ("a/b", false), ("..", false), ("a b", false), ("\u{1B}[2K", false),
        ("é", false), (String(repeating: "a", count: 65), false),
    ])
    func valid(id: String, valid: Bool) {
        #expect(RunDirectory.isValidRunID(id) == valid)
    }
}
