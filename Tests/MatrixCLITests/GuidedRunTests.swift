import Foundation
import Testing
import MatrixModel
import TestSupport

/// Guided Sandbox runs with scripted answers: every case kind, environment limits, account privacy, resume.
@Suite("Guided runs")
struct GuidedRunTests {
    let release = Fixtures.packageDirectory.appendingPathComponent("matrices/release.json")
    let metadata = ["--build", "1.4 (212)", "--device", "iPhone 16", "--os", "iOS 26.1"]

    func records(_ run: URL) throws -> [EvidenceRecord] {
        try String(contentsOf: run.appendingPathComponent("evidence.jsonl"), encoding: .utf8)
            .split(separator: "\n").map { try JSONDecoder().decode(EvidenceRecord.self, from: Data($0.utf8)) }
    }

    /// Answers a tester would give: what the reference app showed in a local run of the same matrix.
    func answersFromLocalRun(in dir: URL) async throws -> [[String: Any]] {
        let local = try await MatrixBinary.run(["run", release.path, "--out", dir.appendingPathComponent("local").path, "--quiet"])
        try #require(local.status == 0)
        let run = try #require(MatrixBinary.runDirectories(under: dir.appendingPathComponent("local")).first)
        return try records(run).map { record in
            var answer: [String: Any] = ["case": record.case, "step": record.step, "access": record.observed?.access ?? []]
            if let result = record.observed?.result { answer["result"] = result }
            return answer
        }
    }

    func write(_ answers: [[String: Any]], to url: URL) throws {
        let lines = try answers.map { String(decoding: try JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys]), as: UTF8.self) }
        try (lines.joined(separator: "\n") + "\n").write(to: url, atomically: true, encoding: .utf8)
    }

    @Test("a replayed run's store times move by the waits it did not sleep, so its timeline is drawn to scale")
    func replayToScale() async throws {
        let dir = try MatrixBinary.scratchDirectory("matrix-replay")
        defer { try? FileManager.default.removeItem(at: dir) }
        let answers = dir.appendingPathComponent("answers.jsonl")
        try write(try await answersFromLocalRun(in: dir).filter { $0["case"] as? String == "renewal/plus-monthly" }, to: answers)
        let guided = try await MatrixBinary.run(["run", release.path, "--env", "sandbox", "--case", "renewal/plus-monthly", "--answers", answers.path,
                                                 "--out", dir.appendingPathComponent("sandbox").path, "--quiet"] + metadata)
        #expect(guided.status == 0, "\(guided.stderr)")
        let run = try #require(MatrixBinary.runDirectories(under: dir.appendingPathComponent("sandbox")).first)
        let steps = try records(run)
        let waited = steps.compactMap(\.modelledWallTimeMs).reduce(0, +)
        #expect(waited >= 5 * 60_000, "a Sandbox renewal of a monthly plan waits 5 minutes: \(waited) ms")
        let times = steps.compactMap { $0.observed?.storeTime }
        #expect(times.count == steps.count && times == times.sorted())
        for (previous, record) in zip(steps, steps.dropFirst()) {
            let moved = (record.observed?.storeTime ?? 0) - (previous.observed?.storeTime ?? 0)
            #expect(moved >= (record.modelledWallTimeMs ?? 0), "step \(record.step) waited \(record.modelledWallTimeMs ?? 0) ms, its store time moved \(moved) ms")
        }
        #expect((times.last ?? 0) - (times.first ?? 0) >= waited, "the whole replay spans the waits, not the milliseconds it took")
    }

    @Test("a scripted Sandbox run of every case kind passes, skips environment limits, and keeps or logs no e-mail address")
    func scriptedSandboxRun() async throws {
        let dir = try MatrixBinary.scratchDirectory("matrix-guided")
        defer { try? FileManager.default.removeItem(at: dir) }
        let answers = dir.appendingPathComponent("answers.jsonl")
        try write(try await answersFromLocalRun(in: dir), to: answers)
        let accounts = dir.appendingPathComponent("accounts.json")
        try #"{"fresh-purchase-pro": {"appleAccount": "Tester.One@Example.com"}, "refund-pro": {"appleAccount": "tester.two@example.com"}}"#
            .write(to: accounts, atomically: true, encoding: .utf8)
        let result = try await MatrixBinary.run(["run", release.path, "--env", "sandbox", "--answers", answers.path, "--accounts", accounts.path,
                                                 "--out", dir.appendingPathComponent("sandbox").path, "--verbose"] + metadata)
        #expect(result.status == 0, "\(result.stderr)")
        // stderr is not a terminal here (a CI log): the instructions name accounts by alias only.
        #expect(result.stderr.contains("signed in with the Sandbox account for fresh-purchase-pro"), "\(result.stderr.prefix(2000))")
        #expect(!result.stderr.lowercased().contains("tester.one@example.com"), "a non-terminal stderr shows an e-mail address")
        let run = try #require(MatrixBinary.runDirectories(under: dir.appendingPathComponent("sandbox")).first)
        #expect(run.pathComponents.suffix(3).prefix(2) == ["sandbox", "1.4-212"])
        let evidence = try records(run)
        #expect(evidence.allSatisfy { $0.environment == "sandbox" && $0.device == "iPhone 16" && $0.os == "iOS 26.1" })
        #expect(Set(evidence.map(\.kind)).count >= 15, "every case kind of the release matrix ran")
        let skipped = evidence.filter { $0.verdict == .skipped }
        #expect(skipped.contains { $0.case == "environment-limit/testflight-daily-renewals" && $0.environmentLimit == "otherClock" })
        #expect(skipped.contains { $0.case == "consumable/killed-before-delivery" && ($0.reason ?? "").contains("terminate the app")
            && $0.environmentLimit == "preciseTermination" })
        let hashed = try #require(evidence.first { $0.account.alias == "fresh-purchase-pro" })
        #expect(hashed.account.hash?.count == 64)
        for file in try FileManager.default.contentsOfDirectory(atPath: run.path) {
            let text = try String(contentsOf: run.appendingPathComponent(file), encoding: .utf8).lowercased()
            #expect(!text.contains("tester.one@example.com") && !text.contains("tester.two@example.com"), "\(file) holds an e-mail address")
        }
    }

    @Test("Sandbox and TestFlight runs whose every answer matches local compare clean: each step they skip is a known divergence")
    func cleanGuidedRunsCompareClean() async throws {
        let dir = try MatrixBinary.scratchDirectory("matrix-guided")
        defer { try? FileManager.default.removeItem(at: dir) }
        let answers = dir.appendingPathComponent("answers.jsonl")
        try write(try await answersFromLocalRun(in: dir), to: answers)
        var runs = [try #require(MatrixBinary.runDirectories(under: dir.appendingPathComponent("local")).first).path]
        for environment in ["sandbox", "testflight"] {
            let guided = try await MatrixBinary.run(["run", release.path, "--env", environment, "--answers", answers.path,
                                               "--out", dir.appendingPathComponent(environment).path, "--quiet"] + metadata)
            #expect(guided.status == 0, "\(guided.stderr)")
            runs.append(try #require(MatrixBinary.runDirectories(under: dir.appendingPathComponent(environment)).first).path)
            let skipped = try records(URL(fileURLWithPath: runs[runs.count - 1])).filter { $0.verdict == .skipped }
            #expect(!skipped.isEmpty && skipped.allSatisfy { $0.environmentLimit != nil }, "\(environment): every skip names its limit")
        }
        let compared = try await MatrixBinary.run(["compare"] + runs + ["--format", "json"])
        #expect(compared.status == 0, "\(compared.stdout)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(compared.stdout.utf8)) as? [String: Any])
        #expect(json["unexplained"] as? Int == 0)
        let differences = try #require(json["differences"] as? [[String: Any]])
        #expect(differences.count >= 10, "the guided runs skip steps the local run performs")
        #expect(differences.allSatisfy { $0["classification"] as? String == "knownEnvironmentDivergence" })
        let cited = Set(differences.flatMap { ($0["divergences"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String } })
        #expect(cited.isSuperset(of: ["askToBuyAnswer", "otherClock", "preciseTermination", "testFlightBillingRetry"]), "\(cited)")
    }

    @Test("a tester's observation that differs from the expectation fails the step")
    func wrongAnswerFails() async throws {
        let dir = try MatrixBinary.scratchDirectory("matrix-guided")
        defer { try? FileManager.default.removeItem(at: dir) }
        var answers = try await answersFromLocalRun(in: dir)
        let index = try #require(answers.firstIndex { $0["case"] as? String == "refund/pro" && $0["step"] as? Int == 2 })
        answers[index]["access"] = ["pro"]
        let file = dir.appendingPathComponent("answers.jsonl")
        try write(answers, to: file)
        let result = try await MatrixBinary.run(["run", release.path, "--env", "sandbox", "--answers", file.path,
                                                 "--out", dir.appendingPathComponent("out").path, "--quiet"] + metadata)
        #expect(result.status == 1)
        let run = try #require(MatrixBinary.runDirectories(under: dir.appendingPathComponent("out")).first)
        let failed = try records(run).filter { $0.verdict == .fail }
        #expect(failed.map { "\($0.case)#\($0.step)" } == ["refund/pro#2"])
    }

    @Test("a run stopped at the first unanswered step resumes to the same evidence as an uninterrupted run")
    func resumeWithMoreAnswers() async throws {
        let dir = try MatrixBinary.scratchDirectory("matrix-guided")
        defer { try? FileManager.default.removeItem(at: dir) }
        let answers = try await answersFromLocalRun(in: dir)
        let all = dir.appendingPathComponent("all.jsonl")
        let half = dir.appendingPathComponent("half.jsonl")
        try write(answers, to: all)
        try write(Array(answers.prefix(answers.count / 2)), to: half)
        let whole = try await MatrixBinary.run(["run", release.path, "--env", "sandbox", "--answers", all.path,
                                                "--out", dir.appendingPathComponent("whole").path, "--quiet"] + metadata)
        #expect(whole.status == 0)
        let stopped = try await MatrixBinary.run(["run", release.path, "--env", "sandbox", "--answers", half.path,
                                                  "--out", dir.appendingPathComponent("parts").path, "--quiet"] + metadata)
        #expect(stopped.status == 130 && stopped.stderr.contains("no answer for case"))
        let run = try #require(MatrixBinary.runDirectories(under: dir.appendingPathComponent("parts")).first)
        // The hint names the answers again: a guided run does not resume without them.
        #expect(stopped.stderr.contains("--resume \(run.path) --answers \(half.path)`"), "\(stopped.stderr)")
        let resumed = try await MatrixBinary.run(["run", "--resume", run.path, "--answers", all.path, "--quiet"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        func comparable(_ records: [EvidenceRecord]) -> [String] {
            records.map { "\($0.seq) \($0.case)#\($0.step) \($0.verdict) \($0.observed?.access ?? []) \($0.observed?.result ?? "-") \($0.reason ?? "")" }
        }
        let reference = try #require(MatrixBinary.runDirectories(under: dir.appendingPathComponent("whole")).first)
        #expect(comparable(try records(run)) == comparable(try records(reference)))
    }

    @Test("guided runs need metadata, a tester or answers, and an accounts file outside any repository")
    func refusals() async throws {
        let dir = try MatrixBinary.scratchDirectory("matrix-guided")
        defer { try? FileManager.default.removeItem(at: dir) }
        let noMetadata = try await MatrixBinary.run(["run", release.path, "--env", "sandbox"])
        #expect(noMetadata.status == 64 && noMetadata.stderr.contains("needs --build, --device and --os"))
        let noTester = try await MatrixBinary.run(["run", release.path, "--env", "testflight", "--out", dir.path] + metadata)
        #expect(noTester.status == 69 && noTester.stderr.contains("--answers FILE"))
        let repository = dir.appendingPathComponent("repo")
        try FileManager.default.createDirectory(at: repository.appendingPathComponent(".git"), withIntermediateDirectories: true)
        let accounts = repository.appendingPathComponent("accounts.json")
        try "{}".write(to: accounts, atomically: true, encoding: .utf8)
        try "".write(to: dir.appendingPathComponent("a.jsonl"), atomically: true, encoding: .utf8)
        let inRepo = try await MatrixBinary.run(["run", release.path, "--env", "sandbox", "--answers", dir.appendingPathComponent("a.jsonl").path,
                                                 "--accounts", accounts.path, "--out", dir.path] + metadata)
        #expect(inRepo.status == 64 && inRepo.stderr.contains("move it outside the repository"))
    }
}

/// What a new user tripped over: answers that do not fit the matrix, warnings that would weaken a run, and an
/// app fault that must be visible in the evidence.
@Suite("Trustworthy runs")
struct TrustworthyRunTests {
    let release = Fixtures.packageDirectory.appendingPathComponent("matrices/release.json")

    @Test("answers naming unknown cases, steps, tiers or results are located errors, all at once, before anything is written")
    func answersChecked() async throws {
        let dir = try MatrixBinary.scratchDirectory("matrix-answers")
        defer { try? FileManager.default.removeItem(at: dir) }
        let answers = dir.appendingPathComponent("a.jsonl")
        try """
            {"case": "fresh-purchase/pro", "step": 0, "access": ["gold"]}
            {"case": "fresh-purchase/pro", "step": 1, "access": ["pro"], "result": "weird"}
            {"case": "cancel/purchase-shet", "step": 0, "access": []}
            {"case": "cancel/purchase-sheet",  "step": 9, "access": []}
            """.write(to: answers, atomically: true, encoding: .utf8)
        let result = try await MatrixBinary.run(["run", release.path, "--env", "sandbox", "--answers", answers.path, "--out", dir.path,
                                                 "--build", "1", "--device", "d", "--os", "o"])
        #expect(result.status == 65)
        #expect(result.stderr.contains(#"a.jsonl:1:53: error: unknown tier "gold""#), "\(result.stderr)")
        #expect(result.stderr.contains(#"a.jsonl:2:72: error: "weird" is not a result"#))
        #expect(result.stderr.contains(#"a.jsonl:3:10: error: the matrix has no case "cancel/purchase-shet"; did you mean "cancel/purchase-sheet"?"#))
        #expect(result.stderr.contains(#"a.jsonl:4:44: error: case "cancel/purchase-sheet" has no step 9 (its steps are numbered from 0 to 2)"#))
        #expect(result.stderr.contains("has 4 problems; nothing was run"))
        #expect(MatrixBinary.runDirectories(under: dir).isEmpty)
    }

    @Test("an answers file without an answer for the first step the run asks is refused before the run starts")
    func firstStepUnanswered() async throws {
        let dir = try MatrixBinary.scratchDirectory("matrix-answers")
        defer { try? FileManager.default.removeItem(at: dir) }
        let answers = dir.appendingPathComponent("a.jsonl")
        try #"{"case": "refund/pro", "step": 0, "access": []}"#.write(to: answers, atomically: true, encoding: .utf8)
        let result = try await MatrixBinary.run(["run", release.path, "--env", "sandbox", "--answers", answers.path, "--out", dir.path,
                                           "--build", "1", "--device", "d", "--os", "o"])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains(#"has no answer for the first step the run asks, case "fresh-purchase/pro" step 0; nothing was run"#))
        #expect(MatrixBinary.runDirectories(under: dir).isEmpty)
        // The selection's first case is answered: the run starts, and stops where the answers end.
        let selected = try await MatrixBinary.run(["run", release.path, "--env", "sandbox", "--case", "refund/pro", "--answers", answers.path,
                                             "--out", dir.path, "--build", "1", "--device", "d", "--os", "o", "--quiet"])
        #expect(selected.status == 130 && selected.stderr.contains(#"no answer for case "refund/pro" step 1"#), "\(selected.stderr)")
    }

    @Test("--strict refuses a matrix with warnings; without it the warnings are kept in run.json")
    func warningsKept() async throws {
        let dir = try MatrixBinary.scratchDirectory("matrix-strict")
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.copyItem(at: release.deletingLastPathComponent().appendingPathComponent("Products.storekit"),
                                         to: dir.appendingPathComponent("Products.storekit"))
        let text = try String(contentsOf: release, encoding: .utf8).replacingOccurrences(of: #""name": "release","#, with: #""name": "release", "x-owner": "QA","#)
        try text.write(to: dir.appendingPathComponent("m.json"), atomically: true, encoding: .utf8)
        let strict = try await MatrixBinary.run(["run", "m.json", "--strict", "--out", "out"], in: dir)
        #expect(strict.status == 65 && strict.stderr.contains("--strict is on; nothing was run"))
        let lenient = try await MatrixBinary.run(["run", "m.json", "--out", "out", "--quiet", "--app-fault", "pendingUnlocks"], in: dir)
        #expect(lenient.status == 1)
        let run = try #require(MatrixBinary.runDirectories(under: dir.appendingPathComponent("out")).first)
        let manifest = try String(contentsOf: run.appendingPathComponent("run.json"), encoding: .utf8)
        #expect(manifest.contains(#"unknown key \"x-owner\""#))
        let summary = try String(contentsOf: run.appendingPathComponent("summary.md"), encoding: .utf8)
        #expect(summary.contains("pendingUnlocks (the reference app ran with this known bug)"))
        let evidence = try String(contentsOf: run.appendingPathComponent("evidence.jsonl"), encoding: .utf8)
        #expect(evidence.split(separator: "\n").allSatisfy { $0.contains(#""appFault":"pendingUnlocks""#) })
    }
}

/// A bundle id `matrix init` guessed is never shown to a tester as the app to open.
@Suite("Guessed bundle ids in guided runs")
struct GuessedBundleIdTests {
    @Test("with bundleIdGuessed the tester is told to open the app under test, not the guess")
    func guessedBundleId() async throws {
        let dir = try MatrixBinary.scratchDirectory("matrix-guessed")
        defer { try? FileManager.default.removeItem(at: dir) }
        let matrices = Fixtures.packageDirectory.appendingPathComponent("matrices")
        try FileManager.default.copyItem(at: matrices.appendingPathComponent("Products.storekit"), to: dir.appendingPathComponent("Products.storekit"))
        let text = try String(contentsOf: matrices.appendingPathComponent("release.json"), encoding: .utf8)
            .replacingOccurrences(of: #""bundleId": "com.example.storekitmatrix""#, with: #""bundleId": "com.example.storekitmatrix", "bundleIdGuessed": true"#)
        try text.write(to: dir.appendingPathComponent("m.json"), atomically: true, encoding: .utf8)
        try #"{"case": "refund/pro", "step": 0, "access": []}"#.write(to: dir.appendingPathComponent("a.jsonl"), atomically: true, encoding: .utf8)
        let result = try await MatrixBinary.run(["run", "m.json", "--env", "sandbox", "--case", "refund/pro", "--answers", "a.jsonl", "--out", "out",
                                           "--build", "1", "--device", "iPhone", "--os", "iOS", "--verbose"], in: dir)
        #expect(result.status == 130, "\(result.stderr)")
        #expect(result.stderr.contains("Open the app under test on iPhone"), "\(result.stderr)")
        #expect(!result.stderr.contains("(com.example.storekitmatrix)"))
    }

    @Test("with bundleIdGuessed the App Store Server API cross-check is refused before the run starts")
    func guessedBundleIdServerCheck() async throws {
        let dir = try MatrixBinary.scratchDirectory("matrix-guessed-api")
        defer { try? FileManager.default.removeItem(at: dir) }
        let matrices = Fixtures.packageDirectory.appendingPathComponent("matrices")
        try FileManager.default.copyItem(at: matrices.appendingPathComponent("Products.storekit"), to: dir.appendingPathComponent("Products.storekit"))
        let text = try String(contentsOf: matrices.appendingPathComponent("release.json"), encoding: .utf8)
            .replacingOccurrences(of: #""bundleId": "com.example.storekitmatrix""#, with: #""bundleId": "com.example.storekitmatrix", "bundleIdGuessed": true"#)
        try text.write(to: dir.appendingPathComponent("m.json"), atomically: true, encoding: .utf8)
        let key = Fixtures.packageDirectory.appendingPathComponent("Tests/AppStoreAPITests/Fixtures/test-pki/testSigningKey.p8")
        try Data(contentsOf: key).write(to: dir.appendingPathComponent("AuthKey_K1.p8"))
        try #"{"issuerId": "ISSUER-guess", "keyId": "K1", "keyPath": "AuthKey_K1.p8"}"#.write(to: dir.appendingPathComponent("c.json"), atomically: true, encoding: .utf8)
        try #"{"case": "refund/pro", "step": 0, "access": []}"#.write(to: dir.appendingPathComponent("a.jsonl"), atomically: true, encoding: .utf8)
        let result = try await MatrixBinary.run(["run", "m.json", "--env", "sandbox", "--case", "refund/pro", "--answers", "a.jsonl", "--out", "out",
                                           "--build", "1", "--device", "iPhone", "--os", "iOS", "--credentials", "c.json"], in: dir)
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("was guessed by matrix init (bundleIdGuessed)"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out").path))
    }
}
