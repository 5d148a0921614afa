import Foundation
import Testing
@testable import EvidenceStore
@testable import FileIO
@testable import MatrixModel
@testable import TestSupport

@Suite("Run manifest")
struct RunManifestTests {
    @Test("A starting manifest says interrupted until the run ends, version 1, with the injected start and no end")
    func starting() throws {
        let manifest = SampleRun.manifest
        #expect(manifest.manifestVersion == 1)
        #expect(manifest.status == .interrupted)
        #expect(manifest.startedAt == "2026-01-15T10:00:00.000Z")
        #expect(manifest.endedAt == nil)
        #expect(manifest.toolVersion == "0.1.0-test")
        #expect(manifest.runId == SampleRun.runID)
        let json = String(decoding: manifest.encoded(), as: UTF8.self)
        #expect(json.contains(#""manifestVersion" : 1"#))
        #expect(json.contains(#""status" : "interrupted""#))
        #expect(!json.contains("endedAt"))
        #expect(json.contains(#""path" : "matrices/release.json""#))
        #expect(json.hasSuffix("}\n"))
    }

    @Test("The matrix reference carries the SHA-256 of the matrix file's bytes")
    func matrixDigest() {
        let reference = MatrixReference(path: "m.json", contents: Data("abc".utf8), name: "m")
        #expect(reference.sha256 == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test("An account hash is salted, normalises the identifier, and never contains it")
    func accountHash() {
        let hash = RunManifest.accountHash(identifier: " Tester@Example.com", salt: "salt-1")
        #expect(hash == RunManifest.accountHash(identifier: "tester@example.com", salt: "salt-1"))
        #expect(hash != RunManifest.accountHash(identifier: "tester@example.com", salt: "salt-2"))
        #expect(hash.count == 64 && hash.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        #expect(hash == Digests.sha256.hexDigest(of: Array("salt-1:tester@example.com".utf8)))
    }

    @Test("The sample member's hash is the salted hash of its identifier")
    func sampleHash() {
        #expect(SampleRun.member.hash == RunManifest.accountHash(identifier: "Member@Example.com ", salt: "s4lt"))
    }

    @Test("Accounts are listed from the matrix with their described state")
    func accountsFromMatrix() {
        let matrix = Matrix(name: "m", app: AppInfo(bundleId: "com.example"), catalog: StoreKitConfiguration(), tiers: [],
                            accounts: [Account(alias: "fresh", description: "no purchases"), Account(alias: "owner", owns: ["p"])],
                            cases: [])
        #expect(RunManifest.accounts(of: matrix) == [
            AccountRef(alias: "fresh", state: "no purchases"), AccountRef(alias: "owner", state: "owns p"),
        ])
    }

    @Test("A manifest survives a round trip through JSON")
    func roundTrip() throws {
        var manifest = SampleRun.manifest
        manifest.status = .interrupted
        manifest.endedAt = "2026-01-15T10:01:35.000Z"
        manifest.counts = RunCounts(records: SampleRun.records)
        manifest.files = ["evidence.jsonl": String(repeating: "0", count: 64)]
        #expect(try RunManifest.decode(manifest.encoded(), path: "run.json") == manifest)
    }

    @Test("Unknown manifest versions and non-manifests are refused", arguments: [
        #"{"manifestVersion": 2}"#, #"{"name": "x"}"#, "[]", #"{"manifestVersion": 1}"#,
    ])
    func refused(json: String) throws {
        let error = try #require(throws: EvidenceReadError.self) { try RunManifest.decode(Data(json.utf8), path: "run.json") }
        #expect(error.code == .unsupportedManifest)
    }

    @Test("Counts come from the evidence: each case once with its worst verdict, and every step")
    func counts() {
        let counts = RunCounts(records: SampleRun.records)
        var cases = VerdictCounts()
        cases.pass = 1; cases.fail = 1; cases.error = 1; cases.skipped = 1
        var steps = VerdictCounts()
        steps.pass = 7; steps.fail = 1; steps.error = 1; steps.skipped = 1; steps.blocked = 2
        #expect(counts == RunCounts(cases: cases, steps: steps))
        #expect(counts.steps.total == SampleRun.records.count)
        #expect(counts.steps.phrase == "1 error, 1 fail, 2 blocked, 1 skipped, 7 pass")
    }
}
