import Foundation
import Testing
@testable import EvidenceStore
@testable import FileIO
@testable import TestSupport

@Suite("SHA-256")
struct SHA256DigestTests {
    @Test("Digests match the FIPS 180-2 test vectors", arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func vectors(input: String, digest: String) {
        #expect(Digests.sha256.hexDigest(of: Array(input.utf8)) == digest)
    }

    @Test("A file is digested in chunks to the same value as its bytes")
    func fileInChunks() throws {
        let root = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent("million-a")
        let bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(bytes.count > StreamedSHA256.chunkSize * 2)
        try Data(bytes).write(to: file)
        let digest = try Digests.sha256.hexDigest(ofFileAt: file)
        #expect(digest == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        #expect(digest == Digests.sha256.hexDigest(of: bytes))
    }

    @Test("A missing file gives a cannotHash error naming it")
    func missingFile() throws {
        let missing = URL(fileURLWithPath: "/nonexistent/reporters/file")
        let error = try #require(throws: EvidenceWriteError.self) { try Digests.sha256.hexDigest(ofFileAt: missing) }
        #expect(error.code == .cannotHash)
        #expect(error.path == missing.path)
    }
}
