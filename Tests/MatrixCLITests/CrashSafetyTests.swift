import Foundation
import MatrixModel
import SignedData
import Signing
import TestSupport
import Testing

/// Runs killed with SIGKILL keep only complete records, say they were interrupted, and `--resume` completes
/// them to the same evidence as an uninterrupted run. Kills and signals land at known records (the evidence
/// writer's test hook, `MATRIX_TEST_KILL_AFTER_RECORDS`); kills at random moments are a soak, tagged `soak`,
/// that runs only with `MATRIX_SOAK=1`.
@Suite("Crash safety and resume")
struct CrashSafetyTests {
    /// The release matrix with every case repeated `copies` times, so that a run lasts long enough to be killed.
    func bigMatrix(in dir: URL, copies: Int) throws -> URL {
        let release = Fixtures.packageDirectory.appendingPathComponent("matrices/release.json")
        var matrix = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: release)) as? [String: Any])
        let cases = try #require(matrix["cases"] as? [[String: Any]])
        matrix["cases"] = (0..<copies).flatMap { copy in
            cases.map { original -> [String: Any] in
                var c = original
                c["id"] = "\(original["id"] ?? "")#\(copy)"
                return c
            }
        }
        matrix["catalog"] = Fixtures.packageDirectory.appendingPathComponent("matrices/Products.storekit").path
        let url = dir.appendingPathComponent("big.json")
        try JSONSerialization.data(withJSONObject: matrix).write(to: url)
        return url
    }

    /// Makes a complete run look as an interruption after 10 records leaves it: the evidence cut to its first
    /// 10 lines, no reports, run.json `interrupted` without `endedAt`. Returns the complete run's evidence lines.
    func interruptAfterTenRecords(_ run: URL) throws -> [String] {
        let evidence = run.appendingPathComponent("evidence.jsonl")
        let lines = try JSONLines.read(evidence)
        try (lines.prefix(10).joined(separator: "\n") + "\n").write(to: evidence, atomically: true, encoding: .utf8)
        for report in ["junit.xml", "summary.md", "report.html"] { try FileManager.default.removeItem(at: run.appendingPathComponent(report)) }
        let manifestURL = run.appendingPathComponent("run.json")
        var manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: manifestURL)) as? [String: Any])
        manifest["status"] = "interrupted"
        manifest.removeValue(forKey: "endedAt")
        try JSONSerialization.data(withJSONObject: manifest).write(to: manifestURL)
        return lines
    }

    /// Evidence lines with what legitimately differs between runs removed: run id, wall-clock times, and the
    /// signatures of signed data (ECDSA signatures are randomised; the signed payload must be equal).
    ///
    /// Decoding a run's records takes a second or more in a debug build: it yields between records, so that
    /// it never holds a thread of the test pool for that long (tests that wait for timers need one).
    func normalised(_ run: URL) async throws -> [String] {
        let text = try String(contentsOf: run.appendingPathComponent("evidence.jsonl"), encoding: .utf8)
        var lines: [String] = []
        for line in JSONLines.split(text) {
            await Task.yield()
            var record = try JSONDecoder().decode(EvidenceRecord.self, from: Data(line.utf8))
            record.run = "-"
            record.wallStart = "-"
            record.wallEnd = "-"
            if var observed = record.observed {
                observed.signedData = try observed.signedData.map { SignedItem(kind: $0.kind, jws: try payload(of: $0.jws)) }
                record.observed = observed
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            lines.append(String(decoding: try encoder.encode(record), as: UTF8.self))
        }
        return lines
    }

    /// The payload of a JWS, with nested JWS (a notification's signed transaction and renewal info) reduced to
    /// their payloads too (as sorted JSON). The simulator writes a payload's members in one order, so payloads
    /// without nested JWS are compared as they are.
    func payload(of jws: String) throws -> String {
        let parts = jws.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        try #require(parts.count == 3, "not a compact JWS: \(jws.prefix(40))")
        let data = try #require(Base64URL.decode(Substring(parts[1])), "the payload is not base64url")
        let text = String(decoding: data, as: UTF8.self)
        guard text.contains("\"signedTransactionInfo\"") || text.contains("\"signedRenewalInfo\"") else { return text }
        var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        if var inner = object["data"] as? [String: Any] {
            for key in ["signedTransactionInfo", "signedRenewalInfo"] {
                if let nested = inner[key] as? String { inner[key] = try payload(of: nested) }
            }
            object["data"] = inner
        }
        return String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    /// Starts a run of `matrix` that the evidence writer's test hook (`MATRIX_TEST_KILL_AFTER_RECORDS`) stops
    /// with `signal` right after `records` records are written.
    func startRun(_ arguments: [String], signal: Int32 = SIGKILL, afterRecords records: Int) throws -> ChildProcess {
        try MatrixBinary.start(arguments, environment: ["MATRIX_TEST_KILL_AFTER_RECORDS": String(records), "MATRIX_TEST_KILL_SIGNAL": String(signal)])
    }

    @Test("SIGKILL right after record N: complete records only, run.json says interrupted, the run verifies, --resume gives the uninterrupted evidence",
          arguments: [(1, "1"), (50, "2"), (120, "1")])
    func killAfterRecord(records: Int, jobs: String) async throws {
        let dir = try MatrixBinary.scratchDirectory("matrix-kill")
        defer { try? FileManager.default.removeItem(at: dir) }
        let matrix = try bigMatrix(in: dir, copies: 1)
        let reference = try await MatrixBinary.run(["run", matrix.path, "--out", dir.appendingPathComponent("reference").path, "--quiet"])
        #expect(reference.status == 0, "stderr: \(reference.stderr)")
        let expected = try await normalised(try #require(MatrixBinary.runDirectories(under: dir.appendingPathComponent("reference")).first))
        try #require(expected.count > records)

        let out = dir.appendingPathComponent("killed")
        let process = try startRun(["run", matrix.path, "--out", out.path, "--quiet", "--jobs", jobs], afterRecords: records)
        #expect(await process.exit() == ChildProcess.Exit(status: SIGKILL, signalled: true))
        let run = try #require(MatrixBinary.runDirectories(under: out).first)
        let manifest = try String(contentsOf: run.appendingPathComponent("run.json"), encoding: .utf8)
        #expect(manifest.contains(#""status" : "interrupted""#))
        // The kill came right after a write returned: every line is whole, and none is lost.
        let text = try String(contentsOf: run.appendingPathComponent("evidence.jsonl"), encoding: .utf8)
        #expect(text.hasSuffix("\n"))
        let lines = JSONLines.split(text)
        #expect(lines.count >= records && lines.count < expected.count, "\(lines.count) records")
        for line in lines {
            await Task.yield()
            #expect((try? JSONDecoder().decode(EvidenceRecord.self, from: Data(line.utf8))) != nil, "a complete line is not a record")
        }
        // A killed run's evidence has grown past the digest its starting run.json lists: no digest covers its records,
        // so the file is unverifiable and the run does not verify until it is resumed; its records still check out.
        let killedVerify = try await MatrixBinary.run(["verify", run.path, "--quiet"])
        #expect(killedVerify.status == 1, "\(killedVerify.stdout) \(killedVerify.stderr)")
        #expect(killedVerify.stdout.hasPrefix("run.json      UNVERIFIABLE evidence.jsonl"), "\(killedVerify.stdout)")
        #expect(!killedVerify.stdout.contains("FAIL") && !killedVerify.stdout.contains("inconsistent"), "\(killedVerify.stdout)")
        let resumed = try await MatrixBinary.run(["run", "--resume", run.path, "--quiet"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try await normalised(run) == expected, "resumed evidence differs")
        let final = try String(contentsOf: run.appendingPathComponent("run.json"), encoding: .utf8)
        #expect(final.contains(#""status" : "complete""#))
    }

    @Test("a resume killed part way leaves a run that has not ended: verify calls it unverifiable, not altered, and a second resume completes it")
    func killedResume() async throws {
        let dir = try MatrixBinary.scratchDirectory("matrix-kill-resume")
        defer { try? FileManager.default.removeItem(at: dir) }
        let matrix = try bigMatrix(in: dir, copies: 1)
        let out = dir.appendingPathComponent("run")
        // Interrupted at a step boundary: run.json has an end, its counts and digests.
        let first = try startRun(["run", matrix.path, "--out", out.path, "--quiet"], signal: SIGINT, afterRecords: 30)
        #expect(await first.exit() == ChildProcess.Exit(status: 130, signalled: false))
        let run = try #require(MatrixBinary.runDirectories(under: out).first)
        #expect(try String(contentsOf: run.appendingPathComponent("run.json"), encoding: .utf8).contains(#""endedAt""#))
        let resuming = try startRun(["run", "--resume", run.path, "--quiet"], signal: SIGKILL, afterRecords: 20)
        #expect(await resuming.exit() == ChildProcess.Exit(status: SIGKILL, signalled: true))
        let manifest = try String(contentsOf: run.appendingPathComponent("run.json"), encoding: .utf8)
        #expect(!manifest.contains(#""endedAt""#) && manifest.contains(#""status" : "interrupted""#), "\(manifest)")
        let verify = try await MatrixBinary.run(["verify", run.path, "--quiet"])
        #expect(verify.status == 1)
        #expect(verify.stdout.hasPrefix("run.json      UNVERIFIABLE evidence.jsonl"), "\(verify.stdout)")
        #expect(!verify.stdout.contains("ALTERED") && !verify.stdout.contains("inconsistent"), "\(verify.stdout)")
        let finished = try await MatrixBinary.run(["run", "--resume", run.path, "--quiet"])
        #expect(finished.status == 0, "\(finished.stderr)")
        #expect(try await MatrixBinary.run(["verify", run.path, "--quiet"]).status == 0)
    }

    /// The size of the evidence under `out`, once a run directory is there.
    func evidenceSize(under out: URL) -> Int? {
        guard let run = MatrixBinary.runDirectories(under: out).first else { return nil }
        return try? FileManager.default.attributesOfItem(atPath: run.appendingPathComponent("evidence.jsonl").path)[.size] as? Int
    }

    /// A soak of about a minute on two cores: kills from outside at random moments, mid-write included (a torn
    /// last line), which the writer's hook never gives. `MATRIX_SOAK=1 swift test --filter CrashSafetyTests/killAndResume`
    /// runs it (`.ci/run` does, after the suite).
    @Test("SIGKILL at random moments: complete records only, run.json says interrupted, --resume gives the uninterrupted evidence",
          .tags(.soak), .enabled(if: ProcessInfo.processInfo.environment["MATRIX_SOAK"] == "1", "a soak: MATRIX_SOAK=1 runs it"))
    func killAndResume() async throws {
        let dir = try MatrixBinary.scratchDirectory("matrix-crash")
        defer { try? FileManager.default.removeItem(at: dir) }
        let matrix = try bigMatrix(in: dir, copies: 24)
        let reference = try await MatrixBinary.run(["run", matrix.path, "--out", dir.appendingPathComponent("reference").path, "--quiet"])
        #expect(reference.status == 0, "stderr: \(reference.stderr)")
        let referenceRun = try #require(MatrixBinary.runDirectories(under: dir.appendingPathComponent("reference")).first)
        let expected = try await normalised(referenceRun)
        let fullSize = try #require(evidenceSize(under: dir.appendingPathComponent("reference")))

        var generator = SystemRandomNumberGenerator()
        var interrupted = 0
        for attempt in 0..<6 {
            let out = dir.appendingPathComponent("killed-\(attempt)")
            let process = try MatrixBinary.start(["run", matrix.path, "--out", out.path, "--quiet", "--jobs", attempt % 2 == 0 ? "1" : "2"])
            // Kills land at a random point of the run's progress (its evidence past a random size), not after a
            // random time, so that they interrupt it however fast or loaded the machine is.
            let killAt = Int.random(in: 1..<(fullSize * 9 / 10), using: &generator)
            while !process.hasExited, (evidenceSize(under: out) ?? 0) < killAt {
                try await Task.sleep(for: .milliseconds(2))
            }
            process.signal(SIGKILL)
            let exit = await process.exit()
            guard let run = MatrixBinary.runDirectories(under: out).first else { continue }  // killed before the directory existed
            let manifest = try String(contentsOf: run.appendingPathComponent("run.json"), encoding: .utf8)
            guard exit.signalled else { continue }  // the run ended before the kill
            interrupted += 1
            #expect(manifest.contains(#""status" : "interrupted""#), "attempt \(attempt)")
            // Every complete line is a record; at most the last line may be torn.
            let text = try String(contentsOf: run.appendingPathComponent("evidence.jsonl"), encoding: .utf8)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            for line in lines.dropLast() {
                await Task.yield()
                #expect((try? JSONDecoder().decode(EvidenceRecord.self, from: Data(line.utf8))) != nil, "attempt \(attempt): a complete line is not a record")
            }
            // A killed run's evidence has grown past the digest its starting run.json lists: no digest covers its records,
            // so the file is unverifiable and the run does not verify until it is resumed; its records still check out.
            let killedVerify = try await MatrixBinary.run(["verify", run.path, "--quiet"])
            #expect(killedVerify.status == (text.isEmpty ? 0 : 1), "attempt \(attempt): \(killedVerify.stdout) \(killedVerify.stderr)")
            if !text.isEmpty {
                #expect(killedVerify.stdout.hasPrefix("run.json      UNVERIFIABLE evidence.jsonl"), "attempt \(attempt): \(killedVerify.stdout)")
                #expect(!killedVerify.stdout.contains("FAIL"), "attempt \(attempt): \(killedVerify.stdout)")
                #expect(!killedVerify.stdout.contains("inconsistent"), "attempt \(attempt): \(killedVerify.stdout)")
            }
            let resumed = try await MatrixBinary.run(["run", "--resume", run.path, "--quiet"])
            #expect(resumed.status == 0, "attempt \(attempt): \(resumed.stderr)")
            #expect(try await normalised(run) == expected, "attempt \(attempt): resumed evidence differs")
            let final = try String(contentsOf: run.appendingPathComponent("run.json"), encoding: .utf8)
            #expect(final.contains(#""status" : "complete""#))
        }
        #expect(interrupted >= 3, "only \(interrupted) of 6 kills interrupted a run")
    }

    @Test("an exec run stopped part way resumes on a new driver to the evidence of an uninterrupted run; a driver on another device is refused")
    func execResume() async throws {
        let dir = try MatrixBinary.scratchDirectory("matrix-exec-resume")
        defer { try? FileManager.default.removeItem(at: dir) }
        let release = Fixtures.packageDirectory.appendingPathComponent("matrices/release.json")
        let driver = "\(MatrixBinary.url.path) driver local"
        let whole = try await MatrixBinary.run(["run", release.path, "--env", "exec", "--driver", driver, "--out", dir.appendingPathComponent("whole").path, "--quiet"])
        #expect(whole.status == 0, "\(whole.stderr)")
        let reference = try #require(MatrixBinary.runDirectories(under: dir.appendingPathComponent("whole")).first)

        // The run as a kill after 40 records leaves it: the first 40 records, run.json saying interrupted.
        func stopped(_ name: String, device: String? = nil) throws -> URL {
            let copy = dir.appendingPathComponent(name)
            try FileManager.default.copyItem(at: reference, to: copy)
            let evidence = copy.appendingPathComponent("evidence.jsonl")
            let lines = try JSONLines.read(evidence).prefix(40)
            try (lines.joined(separator: "\n") + "\n").write(to: evidence, atomically: true, encoding: .utf8)
            for report in ["junit.xml", "summary.md", "report.html"] { try FileManager.default.removeItem(at: copy.appendingPathComponent(report)) }
            let manifestURL = copy.appendingPathComponent("run.json")
            var manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: manifestURL)) as? [String: Any])
            manifest["status"] = "interrupted"
            manifest.removeValue(forKey: "endedAt")
            if let device { manifest["device"] = device }
            try JSONSerialization.data(withJSONObject: manifest).write(to: manifestURL)
            return copy
        }
        let resumed = try stopped("resumed")
        let result = try await MatrixBinary.run(["run", "--resume", resumed.path, "--driver", driver, "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try await normalised(resumed) == (try await normalised(reference)))
        #expect(try await MatrixBinary.run(["verify", resumed.path, "--quiet", "--root", "simulator"]).status == 0)

        let elsewhere = try stopped("elsewhere", device: "iPhone 99")
        let refused = try await MatrixBinary.run(["run", "--resume", elsewhere.path, "--driver", driver, "--quiet"])
        #expect(refused.status == 69)
        #expect(refused.stderr.contains(#"the driver now reports device "embedded simulator"; the run's evidence records "iPhone 99""#), "\(refused.stderr)")
        #expect(try JSONLines.read(elsewhere.appendingPathComponent("evidence.jsonl")).count == 40)
    }

    @Test("a resumed run keeps its app fault: every record names it, and the run verifies")
    func resumeKeepsAppFault() async throws {
        let dir = try MatrixBinary.scratchDirectory("matrix-resume-fault")
        defer { try? FileManager.default.removeItem(at: dir) }
        let matrix = try bigMatrix(in: dir, copies: 2)
        let whole = try await MatrixBinary.run(["run", matrix.path, "--out", dir.appendingPathComponent("out").path, "--quiet", "--app-fault", "pendingUnlocks"])
        #expect(whole.status == 1, "the fault makes a case fail: \(whole.stderr)")
        let run = try #require(MatrixBinary.runDirectories(under: dir.appendingPathComponent("out")).first)
        let evidence = run.appendingPathComponent("evidence.jsonl")
        let lines = try interruptAfterTenRecords(run)

        let resumed = try await MatrixBinary.run(["run", "--resume", run.path, "--quiet"])
        #expect(resumed.status == 1, "\(resumed.stderr)")
        let records = try JSONLines.read(evidence)
        #expect(records.count == lines.count)
        #expect(records.allSatisfy { $0.contains(#""appFault":"pendingUnlocks""#) })
        let verified = try await MatrixBinary.run(["verify", run.path, "--quiet"])
        #expect(verified.status == 0, "\(verified.stdout) \(verified.stderr)")
    }

    @Test("resuming refuses a complete run, a changed matrix and a driver run without its driver, and leaves a refused run's evidence as it was")
    func resumeRefusals() async throws {
        let dir = try MatrixBinary.scratchDirectory("matrix-resume")
        defer { try? FileManager.default.removeItem(at: dir) }
        let matrix = try bigMatrix(in: dir, copies: 1)
        #expect(try await MatrixBinary.run(["run", matrix.path, "--out", dir.appendingPathComponent("out").path, "--quiet"]).status == 0)
        let run = try #require(MatrixBinary.runDirectories(under: dir.appendingPathComponent("out")).first)
        // A torn last line, which only a resumed run cuts: a refusal leaves it, and every byte before it.
        let evidence = run.appendingPathComponent("evidence.jsonl")
        let handle = try FileHandle(forWritingTo: evidence)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"run":"torn","seq":"#.utf8))
        try handle.close()
        let torn = try Data(contentsOf: evidence)
        let complete = try await MatrixBinary.run(["run", "--resume", run.path])
        #expect(complete.status == 64 && complete.stderr.contains("nothing to resume"))
        #expect(try Data(contentsOf: evidence) == torn)
        // Pretend the run was interrupted, then change the matrix.
        let manifestURL = run.appendingPathComponent("run.json")
        let manifest = try String(contentsOf: manifestURL, encoding: .utf8)
        try manifest.replacingOccurrences(of: #""status" : "complete""#, with: #""status" : "interrupted""#)
            .write(to: manifestURL, atomically: true, encoding: .utf8)
        try (try String(contentsOf: matrix, encoding: .utf8) + "\n").write(to: matrix, atomically: true, encoding: .utf8)
        let changed = try await MatrixBinary.run(["run", "--resume", run.path])
        #expect(changed.status == 65 && changed.stderr.contains("changed since the run started"))
        #expect(try Data(contentsOf: evidence) == torn)
        // A driver's environment without the driver's command: said so, not "--env must be one of".
        for environment in ["exec", "staging-iphone"] {
            var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: manifestURL)) as? [String: Any])
            object["environment"] = environment
            try JSONSerialization.data(withJSONObject: object).write(to: manifestURL)
            let driverless = try await MatrixBinary.run(["run", "--resume", run.path])
            #expect(driverless.status == 65, "\(driverless.stderr)")
            #expect(driverless.stderr.contains("its run.json names the environment \"\(environment)\", which an external driver runs, but no driver command"),
                    "\(driverless.stderr)")
            #expect(try Data(contentsOf: evidence) == torn)
        }
        var local = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: manifestURL)) as? [String: Any])
        local["environment"] = "local"
        try JSONSerialization.data(withJSONObject: local).write(to: manifestURL)
        // A relative matrix path recorded elsewhere: the error says how to name the matrix.
        var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: manifestURL)) as? [String: Any])
        var reference = try #require(object["matrix"] as? [String: Any])
        reference["path"] = "matrices/started-elsewhere.json"
        object["matrix"] = reference
        try JSONSerialization.data(withJSONObject: object).write(to: manifestURL)
        let elsewhere = try await MatrixBinary.run(["run", "--resume", run.path])
        #expect(elsewhere.status == 66, "\(elsewhere.stderr)")
        #expect(elsewhere.stderr.contains("matrices/started-elsewhere.json is not found from here nor from the directories above the run"))
        #expect(elsewhere.stderr.contains("name it: `matrix run MATRIX --resume \(run.path)`"))
    }

    @Test("a run started with relative paths resumes from another directory: its matrix is found above the run, not taken from a file of the same name here")
    func resumeFromAnotherDirectory() async throws {
        let dir = try MatrixBinary.scratchDirectory("matrix-resume-elsewhere")
        defer { try? FileManager.default.removeItem(at: dir) }
        let project = dir.appendingPathComponent("project")
        let other = dir.appendingPathComponent("other")
        for directory in [project, other] { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
        _ = try bigMatrix(in: project, copies: 1)
        #expect(try await MatrixBinary.run(["run", "big.json", "--out", "reports", "--quiet"], in: project).status == 0)
        let run = try #require(MatrixBinary.runDirectories(under: project.appendingPathComponent("reports")).first)
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: run.appendingPathComponent("run.json"))) as? [String: Any])
        #expect((manifest["matrix"] as? [String: Any])?["path"] as? String == "big.json")
        let evidence = run.appendingPathComponent("evidence.jsonl")
        let lines = try interruptAfterTenRecords(run)
        // Another matrix of the same name where the resume is started.
        try Data(#"{"schemaVersion": 1, "cases": []}"#.utf8).write(to: other.appendingPathComponent("big.json"))

        let resumed = try await MatrixBinary.run(["run", "--resume", run.path, "--quiet"], in: other)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try JSONLines.read(evidence).count == lines.count)
        let verified = try await MatrixBinary.run(["verify", run.path], in: other)
        #expect(verified.status == 0, "\(verified.stdout) \(verified.stderr)")
        #expect(verified.stderr.contains("(its SHA-256 matches run.json)"), "verify finds the same matrix: \(verified.stderr)")
    }

    @Test("SIGINT, SIGTERM and SIGHUP stop at a step boundary, keep the evidence, write an interrupted run.json and exit 130", arguments: [SIGINT, SIGTERM, SIGHUP])
    func signals(signal: Int32) async throws {
        let dir = try MatrixBinary.scratchDirectory("matrix-signal")
        defer { try? FileManager.default.removeItem(at: dir) }
        // Long enough (254 steps) that the run is still going when the signal, sent after record 5, is handled.
        let matrix = try bigMatrix(in: dir, copies: 2)
        let process = try startRun(["run", matrix.path, "--out", dir.appendingPathComponent("out").path, "--quiet", "--jobs", "1"],
                                   signal: signal, afterRecords: 5)
        #expect(await process.exit() == ChildProcess.Exit(status: 130, signalled: false))
        let run = try #require(MatrixBinary.runDirectories(under: dir.appendingPathComponent("out")).first)
        let manifest = try String(contentsOf: run.appendingPathComponent("run.json"), encoding: .utf8)
        #expect(manifest.contains(#""status" : "interrupted""#) && manifest.contains("endedAt"))
        let text = try String(contentsOf: run.appendingPathComponent("evidence.jsonl"), encoding: .utf8)
        #expect(text.hasSuffix("\n"), "the evidence ends with a complete record")
        #expect(JSONLines.split(text).count >= 5)
        #expect(FileManager.default.fileExists(atPath: run.appendingPathComponent("junit.xml").path))
        // Its reports, rendered again from run.json and the evidence, are the ones it wrote as it stopped.
        let verified = try await MatrixBinary.run(["verify", run.path, "--quiet"])
        #expect(verified.status == 0, "\(verified.stdout) \(verified.stderr)")
        #expect(verified.stderr.contains("; 3 reports match the evidence"), "\(verified.stderr)")
        // Unaltered is not complete: even with --quiet, verify says the run stopped short of the matrix.
        #expect(verified.stderr.contains("is unaltered but incomplete (the run was interrupted): "), "\(verified.stderr)")
        #expect(verified.stderr.contains("warning: the run was interrupted") && verified.stderr.contains("does not cover the whole matrix"),
                "\(verified.stderr)")
        let resumed = try await MatrixBinary.run(["run", "--resume", run.path, "--quiet"])
        #expect(resumed.status == 0)
        let complete = try await MatrixBinary.run(["verify", run.path, "--quiet"])
        #expect(complete.status == 0 && !complete.stderr.contains("interrupted") && complete.stderr.contains(" is unaltered: "), "\(complete.stderr)")
    }

    @Test("a signal the run was started with ignored (nohup's SIGHUP) stays ignored: the run goes on to the end")
    func ignoredSignalStaysIgnored() async throws {
        let dir = try MatrixBinary.scratchDirectory("matrix-nohup")
        defer { try? FileManager.default.removeItem(at: dir) }
        let matrix = try bigMatrix(in: dir, copies: 2)
        // As nohup does: SIGHUP ignored, then the run exec'd in its place; the hook sends SIGHUP after record 1.
        let process = try ChildProcess(URL(fileURLWithPath: "/bin/sh"),
                                       ["-c", "trap '' HUP; exec \"$0\" run \"$1\" --out \"$2\" --quiet --jobs 1",
                                        MatrixBinary.url.path, matrix.path, dir.appendingPathComponent("out").path],
                                       environment: MatrixBinary.environment(["MATRIX_TEST_KILL_AFTER_RECORDS": "1",
                                                                              "MATRIX_TEST_KILL_SIGNAL": String(SIGHUP)]))
        #expect(await process.exit() == ChildProcess.Exit(status: 0, signalled: false))
        let run = try #require(MatrixBinary.runDirectories(under: dir.appendingPathComponent("out")).first)
        let manifest = try String(contentsOf: run.appendingPathComponent("run.json"), encoding: .utf8)
        #expect(manifest.contains(#""status" : "complete""#))
    }

    @Test("the evidence is the same, in the same order, with one job or several")
    func jobsDoNotChangeEvidence() async throws {
        let dir = try MatrixBinary.scratchDirectory("matrix-jobs")
        defer { try? FileManager.default.removeItem(at: dir) }
        let matrix = try bigMatrix(in: dir, copies: 2)
        var runs: [[String]] = []
        for jobs in ["1", "2", "4"] {
            let out = dir.appendingPathComponent("jobs-\(jobs)")
            let result = try await MatrixBinary.run(["run", matrix.path, "--out", out.path, "--quiet", "--jobs", jobs])
            #expect(result.status == 0)
            runs.append(try await normalised(try #require(MatrixBinary.runDirectories(under: out).first)))
        }
        #expect(runs[0] == runs[1] && runs[1] == runs[2])
    }

    @Test("a run's evidence belongs to one process: a second resume is refused; a resume refuses a changed catalog")
    func oneWriterAndSameCatalog() async throws {
        let dir = try MatrixBinary.scratchDirectory("matrix-lock")
        defer { try? FileManager.default.removeItem(at: dir) }
        let catalog = dir.appendingPathComponent("Products.storekit")
        try FileManager.default.copyItem(at: Fixtures.packageDirectory.appendingPathComponent("matrices/Products.storekit"), to: catalog)
        let release = try String(contentsOf: Fixtures.packageDirectory.appendingPathComponent("matrices/release.json"), encoding: .utf8)
        try release.write(to: dir.appendingPathComponent("m.json"), atomically: true, encoding: .utf8)
        #expect(try await MatrixBinary.run(["run", "m.json", "--out", "out", "--quiet"], in: dir).status == 0)
        let run = try #require(MatrixBinary.runDirectories(under: dir.appendingPathComponent("out")).first)
        let manifestURL = run.appendingPathComponent("run.json")
        let manifest = try String(contentsOf: manifestURL, encoding: .utf8)
        try manifest.replacingOccurrences(of: #""status" : "complete""#, with: #""status" : "interrupted""#)
            .write(to: manifestURL, atomically: true, encoding: .utf8)

        // Hold the evidence as a running matrix process would.
        let fd = open(run.appendingPathComponent("evidence.jsonl").path, O_WRONLY | O_APPEND)
        #expect(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0)
        let second = try await MatrixBinary.run(["run", "--resume", run.path], in: dir)
        close(fd)
        #expect(second.status != 0 && second.stderr.contains("another matrix process is writing"))

        let text = try String(contentsOf: catalog, encoding: .utf8)
        try text.replacingOccurrences(of: #""displayPrice" : "9.99""#, with: #""displayPrice" : "8.99""#).write(to: catalog, atomically: true, encoding: .utf8)
        let changed = try await MatrixBinary.run(["run", "--resume", run.path], in: dir)
        #expect(changed.status == 65 && changed.stderr.contains("changed since the run started"), "\(changed.stderr)")
    }
}

extension Tag {
    /// Long tests that only run when asked (`MATRIX_SOAK=1`), not in the everyday `swift test`.
    @Tag static var soak: Self
}
