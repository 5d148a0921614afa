import Foundation
import Testing
@testable import TestSupport

/// `matrix verify ARCHIVE` on an archive from someone else: a gzip bomb, a sparse member or a signal cannot make
/// it fill the disk, run for minutes, or leave a temporary folder and a running child behind.
@Suite("matrix verify: archives are bounded")
struct ArchiveBoundsTests {
    /// `gzip -c` of `bytes`.
    static func gzip(_ bytes: [UInt8], in directory: URL) async throws -> Data {
        let input = directory.appendingPathComponent("gzip-input-\(UUID().uuidString)")
        let output = directory.appendingPathComponent("gzip-output-\(UUID().uuidString)")
        try Data(bytes).write(to: input)
        defer {
            try? FileManager.default.removeItem(at: input)
            try? FileManager.default.removeItem(at: output)
        }
        // Into a file, not a pipe, and without blocking a thread of the test's pool.
        let result = try await ChildProcess.run(URL(fileURLWithPath: "/bin/sh"), ["-c", #"gzip -c "$1" > "$2""#, "sh", input.path, output.path])
        #expect(result.exit.status == 0, "\(result.stderr)")
        return try Data(contentsOf: output)
    }

    /// A gzip file that expands to `mebibytes` MiB of one member: gzip members of 1 MiB of zeros, concatenated
    /// (gzip -d reads them as one stream), after a tar header that declares them.
    static func bomb(_ name: String, mebibytes: Int64, member: String, in directory: URL) async throws -> URL {
        var header = TarBuilder()
        header.entry(member, size: mebibytes << 20)
        var data = try await gzip(header.bytes, in: directory)
        let mebibyte = try await gzip([UInt8](repeating: 0, count: 1 << 20), in: directory)
        for _ in 0..<mebibytes { data += mebibyte }
        let url = directory.appendingPathComponent(name)
        try data.write(to: url)
        return url
    }

    /// The `matrix-verify-*` folders left in `directory`.
    static func leftovers(in directory: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.hasPrefix("matrix-verify-") }
    }

    @Test("A 3 MB gzip bomb of 3 GiB is refused from its header (65): nothing is written, no folder is left", .timeLimit(.minutes(1)))
    func gzipBomb() async throws {
        let scratch = try MatrixBinary.scratchDirectory("matrix-bomb")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let temporary = scratch.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        let bomb = try await Self.bomb("bomb.tar.gz", mebibytes: 3 << 10, member: "run/evidence.jsonl", in: scratch)
        let result = try await MatrixBinary.run(["verify", bomb.path], environment: ["TMPDIR": temporary.path])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("has a member \"run/evidence.jsonl\" of 3221225472 bytes, more than the 1073741824 bytes a member may have"),
                "\(result.stderr)")
        #expect(Self.leftovers(in: temporary).isEmpty)
    }

    @Test("A sparse member is refused (65) instead of being expanded", .timeLimit(.minutes(1)))
    func sparse() async throws {
        let scratch = try MatrixBinary.scratchDirectory("matrix-sparse")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let run = scratch.appendingPathComponent("run")
        try FileManager.default.createDirectory(at: run, withIntermediateDirectories: true)
        let file = try FileHandle(forWritingTo: { let url = run.appendingPathComponent("evidence.jsonl"); _ = FileManager.default.createFile(atPath: url.path, contents: nil); return url }())
        try file.truncate(atOffset: 10 << 30)
        try file.close()
        let archive = scratch.appendingPathComponent("sparse.tar.gz")
        try await tar(["--sparse", "-czf", archive.path, "-C", scratch.path, "run"])
        let result = try await MatrixBinary.run(["verify", archive.path], environment: ["TMPDIR": scratch.path])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("is a sparse file"), "\(result.stderr)")
        #expect(Self.leftovers(in: scratch).isEmpty)
    }

    /// Stops the first child `process` starts (SIGSTOP), watched for up to 50 s from a thread of its own: polling
    /// from the shared pool, which the suite's other tests keep busy, let a whole archive be packed between two
    /// looks. Returns `nil` (an issue recorded, saying whether the process exited first, with its status and
    /// stderr) when none was seen.
    static func stopFirstChild(of process: ChildProcess, missing: String) async throws -> Int32? {
        let pid = process.pid
        let child = await withCheckedContinuation { (continuation: CheckedContinuation<Int32?, Never>) in
            Thread {
                let deadline = Date().addingTimeInterval(50)
                while Date() < deadline, !process.hasExited {
                    if let child = children(of: pid).first {
                        kill(child, SIGSTOP)
                        return continuation.resume(returning: child)
                    }
                    usleep(5_000)
                }
                continuation.resume(returning: nil)
            }.start()
        }
        if let child { return child }
        let ended = process.hasExited ? try await process.finish() : nil
        Issue.record("\(missing): \(ended.map { "it exited \($0.exit.status): \($0.stderr)" } ?? "it ran 50 s without one")")
        return nil
    }

    /// The child processes of `pid`, from /proc.
    static func children(of pid: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { child in
            guard let stat = try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 2 && Int32(fields[1]) == pid
        }
    }

    @Test("SIGTERM while an archive is unpacked ends its child, removes the temporary folder and exits 130", .timeLimit(.minutes(5)))
    func signal() async throws {
        let scratch = try MatrixBinary.scratchDirectory("matrix-unpack-signal")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let temporary = scratch.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        // Within the limits, so that it is still being unpacked when the signal comes.
        let archive = try await Self.bomb("big.tar.gz", mebibytes: 900, member: "run/evidence.jsonl", in: scratch)

        // The child's output goes to a file: a pipe would also be held open by the child it starts.
        let process = try ChildProcess(MatrixBinary.url, ["verify", archive.path], environment: MatrixBinary.environment(["TMPDIR": temporary.path]),
                                       stderr: .capture)
        // The deterministic point: the child that decompresses exists; it is stopped there, mid-stream.
        guard let stopped = try await Self.stopFirstChild(of: process, missing: "the archive was unpacked before its child could be seen") else { return }
        defer { kill(stopped, SIGKILL) }
        process.signal(SIGTERM)
        let result = try await process.finish()
        let stderr = result.stderr
        #expect(result.exit.status == 130 && !result.exit.signalled, "\(stderr)")
        #expect(stderr.contains("stopped on a signal"), "\(stderr)")
        #expect(Self.leftovers(in: temporary).isEmpty, "\(Self.leftovers(in: temporary))")
        #expect(kill(stopped, 0) != 0, "the child is gone, not left running")
    }

    @Test("SIGTERM while matrix archive packs ends tar and leaves no partial archive or temporary folder (130)", .timeLimit(.minutes(5)))
    func archiveSignal() async throws {
        let release = try await ReleaseRun.copy()
        defer { release.remove() }
        let temporary = release.root.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        // A large file, so that tar is still packing when the signal comes (matrix warns that run.json does not list it).
        let extra = release.run.appendingPathComponent("extra.bin")
        _ = FileManager.default.createFile(atPath: extra.path, contents: nil)
        let handle = try FileHandle(forWritingTo: extra)
        try handle.truncate(atOffset: 512 << 20)
        try handle.close()
        let output = release.root.appendingPathComponent("out").appendingPathComponent("run.tar.gz")
        try FileManager.default.createDirectory(at: output.deletingLastPathComponent(), withIntermediateDirectories: true)

        let process = try ChildProcess(MatrixBinary.url, ["archive", release.run.path, "--out", output.path],
                                       environment: MatrixBinary.environment(["TMPDIR": temporary.path]), stderr: .capture)
        guard let stopped = try await Self.stopFirstChild(of: process, missing: "the run was packed before tar could be seen") else { return }
        defer { kill(stopped, SIGKILL) }
        process.signal(SIGTERM)
        let result = try await process.finish()
        #expect(result.exit.status == 130 && !result.exit.signalled, "\(result.stderr)")
        let left = try FileManager.default.contentsOfDirectory(atPath: output.deletingLastPathComponent().path)
        #expect(left.isEmpty, "\(left)")
        let staged = try FileManager.default.contentsOfDirectory(atPath: temporary.path).filter { $0.hasPrefix("matrix-") }
        #expect(staged.isEmpty, "\(staged)")
        #expect(kill(stopped, 0) != 0, "tar is gone, not left running")
    }
}
