import Foundation
import Testing
import LoopbackHTTP
@testable import MatrixCLI
@testable import TestSupport

/// `matrix run --env server`: its options, and a run against a backend in this process.
@Suite("matrix run --env server")
struct ServerRunCommandTests {
    static let release = Fixtures.packageDirectory.appendingPathComponent("matrices/release.json").path

    @Test("usage mistakes are reported before anything runs, exit 64", arguments: [
        (["--env", "server"], "--env server needs --notify-url URL"),
        (["--env", "server", "--notify-url", "https://127.0.0.1:1/n", "--access-url", "http://127.0.0.1:1/a"], "must be an http:// URL on 127.0.0.1"),
        (["--env", "server", "--notify-url", "http://192.168.1.2:1/n", "--access-url", "http://127.0.0.1:1/a"], "must name 127.0.0.1 or localhost"),
        (["--env", "server", "--notify-url", "http://127.0.0.1:{port}/n", "--access-url", "http://127.0.0.1:1/a"], "{port} is filled in only when --server"),
        (["--env", "server", "--notify-url", "http://127.0.0.1:1/n", "--access-url", "http://127.0.0.1:1/{user}"], "unknown placeholder {user}"),
        (["--env", "server", "--notify-url", "http://127.0.0.1:1/n", "--access-url", "http://127.0.0.1:1/a", "--seed", "3"], "--seed orders --delivery"),
        (["--env", "server", "--notify-url", "http://127.0.0.1:1/n", "--access-url", "http://127.0.0.1:1/a", "--delivery", "twice"], "--delivery"),
        (["--notify-url", "http://127.0.0.1:1/n"], "--notify-url needs --env server"),
        (["--signing-faults"], "--signing-faults needs --env server"),
        (["--api-key-id", "K1"], "--api-key-id needs --env server"),
        (["--env", "server", "--notify-url", "http://127.0.0.1:1/n", "--access-url", "http://127.0.0.1:1/a", "--api-issuer-id", "has space"],
         "--api-issuer-id must be 1 to 100 printable ASCII characters"),
        (["--env", "server", "--notify-url", "http://127.0.0.1:1/n", "--access-url", "http://127.0.0.1:1/a", "--app-fault", "lateUpdatesListener"],
         "--app-fault does not apply to --env server"),
    ])
    func usage(_ arguments: [String], _ message: String) async throws {
        let out = try MatrixBinary.scratchDirectory("server-usage")
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try await CapturedRun.run(["run", Self.release, "--out", out.path] + arguments)
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains(message), "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).isEmpty)
    }

    @Test("a backend that exits before it listens makes the environment unavailable, exit 69, with its last output")
    func backendExits() async throws {
        let out = try MatrixBinary.scratchDirectory("server-exits")
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try await CapturedRun.run(["run", Self.release, "--out", out.path, "--env", "server",
                                             "--server", "/bin/sh -c 'echo cannot open the database; exit 3'",
                                             "--notify-url", "http://127.0.0.1:{port}/n", "--access-url", "http://127.0.0.1:{port}/a"])
        #expect(run.status == 69, "\(run.stderr)")
        #expect(run.stderr.contains("exited with status 3 before it listened"), "\(run.stderr)")
        #expect(run.stderr.contains("cannot open the database"), "\(run.stderr)")
    }

    @Test("the App Store Connect key id and issuer id show on the terminal masked, never whole")
    func maskedIdentifiers() async throws {
        let out = try MatrixBinary.scratchDirectory("server-masked")
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try await CapturedRun.run(["run", Self.release, "--out", out.path, "--env", "server", "--verbose",
                                             "--api-key-id", "KEYIDSECRET123", "--api-issuer-id", "57246542-96fe-1a63-e053-0824d011072a",
                                             "--server", "/bin/sh -c 'exit 3'",
                                             "--notify-url", "http://127.0.0.1:{port}/n", "--access-url", "http://127.0.0.1:{port}/a"])
        #expect(run.status == 69, "\(run.stderr)")
        #expect(run.stderr.contains("(key id KEYI…, issuer id 5724…, key "), "\(run.stderr)")
        for secret in ["KEYIDSECRET123", "57246542-96fe", "0824d011072a"] {
            #expect(!run.stderr.contains(secret), "\(run.stderr)")
        }
    }

    /// The release matrix cut to its first `cases` cases, its catalog named by absolute path, in `directory`.
    static func smallMatrix(in directory: URL, cases: Int = 1) throws -> String {
        let release = Fixtures.packageDirectory.appendingPathComponent("matrices")
        var matrix = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: release.appendingPathComponent("release.json"))) as? [String: Any])
        matrix["cases"] = (matrix["cases"] as? [Any])?.prefix(cases).map { $0 }
        matrix["catalog"] = release.appendingPathComponent("Products.storekit").path
        let path = directory.appendingPathComponent("small.json")
        try JSONSerialization.data(withJSONObject: matrix).write(to: path)
        return path.path
    }

    @Test("SIGINT while a backend holds a notification unanswered stops the server run at once, exit 130", .timeLimit(.minutes(3)))
    func signalDuringDelivery() async throws {
        let out = try MatrixBinary.scratchDirectory("server-signal")
        defer { try? FileManager.default.removeItem(at: out) }
        let matrix = try Self.smallMatrix(in: out)
        let asked = DispatchSemaphore(value: 0)
        let held = DispatchSemaphore(value: 0)
        let backend = try LoopbackHTTPServer.start { request in
            guard request.method == "POST" else { return .json(200, Array(#"{"access": []}"#.utf8)) }
            asked.signal()
            _ = held.wait(timeout: .now() + 60)
            return HTTPResponse(status: 200)
        }
        defer {
            backend.stop()
            for _ in 0..<8 { held.signal() }
        }
        let process = try ChildProcess(MatrixBinary.url, ["run", matrix, "--out", out.appendingPathComponent("reports").path, "--env", "server",
                                                          "--step-timeout", "60",
                                                          "--notify-url", "http://127.0.0.1:\(backend.port)/n",
                                                          "--access-url", "http://127.0.0.1:\(backend.port)/a/{appAccountToken}"],
                                       environment: MatrixBinary.environment(), stderr: .capture)
        // The deterministic point: the backend holds the first notification.
        let waited = await Task.detached { asked.wait(timeout: .now() + 90) }.value
        #expect(waited == .success, "the backend was never sent a notification")
        let signalled = ContinuousClock.now
        process.signal(SIGINT)
        let result = try await process.finish()
        let elapsed = ContinuousClock.now - signalled
        #expect(result.exit == ChildProcess.Exit(status: 130, signalled: false), "\(result.stderr)")
        // A third of a second on an idle machine; the margin is for a loaded one. Without cancellation the held
        // notification waits out its 60 s.
        #expect(elapsed < .seconds(45), "\(elapsed)")
        #expect(result.stderr.contains("a server run is not resumed"), "\(result.stderr)")
    }

    @Test("a run against a backend that grants nothing writes server evidence and fails the steps that expect access, exit 1")
    func runAgainstBackend() async throws {
        let backend = try LoopbackHTTPServer.start { request in
            request.method == "POST" ? HTTPResponse(status: 200) : .json(200, Array(#"{"access": []}"#.utf8))
        }
        defer { backend.stop() }
        let out = try MatrixBinary.scratchDirectory("server-run")
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try await CapturedRun.run(["run", Self.release, "--out", out.path, "--env", "server", "--quiet",
                                             "--notify-url", "http://127.0.0.1:\(backend.port)/n",
                                             "--access-url", "http://127.0.0.1:\(backend.port)/a/{appAccountToken}"])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("FAIL    fresh-purchase/pro — step 1 (purchase): access: expected [\"pro\"], observed []"), "\(run.stderr)")
        let runDirectory = try #require(FileManager.default.enumerator(atPath: out.path)?.compactMap { $0 as? String }.first { $0.hasSuffix("evidence.jsonl") })
        let lines = try String(contentsOfFile: out.appendingPathComponent(runDirectory).path, encoding: .utf8).split(separator: "\n")
        let first = try #require(lines.first.flatMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
        #expect(first["environment"] as? String == "server")
        #expect((first["device"] as? String)?.hasPrefix("backend at http://127.0.0.1:\(backend.port)/n (delivery production)") == true)
        let purchase = try #require(try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any])
        let server = try #require((purchase["observed"] as? [String: Any])?["server"] as? [String: Any])
        #expect(server["appAccess"] as? [String] == ["pro"])
        #expect(((server["deliveries"] as? [[String: Any]])?.first?["notificationType"] as? String) == "ONE_TIME_CHARGE")
        // A server run is not resumed, and refusing leaves it as it was.
        let runPath = out.appendingPathComponent(runDirectory).deletingLastPathComponent().path
        let before = try Data(contentsOf: out.appendingPathComponent(runDirectory))
        let resume = try await CapturedRun.run(["run", "--resume", runPath])
        #expect(resume.status == 64, "\(resume.stderr)")
        #expect(resume.stderr.contains("is a server run: a server run is not resumed"), "\(resume.stderr)")
        #expect(try Data(contentsOf: out.appendingPathComponent(runDirectory)) == before)
        // matrix verify trusts the simulator root for a server run without being told.
        let verify = try await CapturedRun.run(["verify", out.appendingPathComponent(runDirectory).deletingLastPathComponent().path])
        #expect(verify.status == 0, "\(verify.stderr)")
        #expect(verify.stderr.contains("verified to StoreKit Matrix Simulator Root CA (NOT Apple)"), "\(verify.stderr)")
    }

    @Test("--signing-faults against a backend that answers 200 to everything fails the steps that sent faults, exit 1")
    func signingFaultsAccepted() async throws {
        let backend = try LoopbackHTTPServer.start { request in
            request.method == "POST" ? HTTPResponse(status: 200) : .json(200, Array(#"{"access": []}"#.utf8))
        }
        defer { backend.stop() }
        let out = try MatrixBinary.scratchDirectory("server-faults")
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try await CapturedRun.run(["run", Self.release, "--out", out.path, "--env", "server", "--quiet", "--signing-faults",
                                             "--notify-url", "http://127.0.0.1:\(backend.port)/n",
                                             "--access-url", "http://127.0.0.1:\(backend.port)/a/{appAccountToken}"])
        #expect(run.status == 1, "\(run.stderr)")
        let evidence = try #require(FileManager.default.enumerator(atPath: out.path)?.compactMap { $0 as? String }.first { $0.hasSuffix("evidence.jsonl") })
        let text = try String(contentsOfFile: out.appendingPathComponent(evidence).path, encoding: .utf8)
        #expect(text.contains("accepted a notification a correct server refuses (wrongChain"))
        #expect(text.contains("\"fault\":\"alteredPayload\""))
    }

    @Test("--api-key that cannot be read is exit 66, one that is not a key exit 65")
    func apiKeyFiles() async throws {
        let out = try MatrixBinary.scratchDirectory("server-api-key")
        defer { try? FileManager.default.removeItem(at: out) }
        let notAKey = out.appendingPathComponent("key.p8")
        try Data("not a key".utf8).write(to: notAKey)
        let urls = ["--notify-url", "http://127.0.0.1:1/n", "--access-url", "http://127.0.0.1:1/a"]
        let missing = try await CapturedRun.run(["run", Self.release, "--out", out.appendingPathComponent("r").path, "--env", "server",
                                                 "--api-key", out.appendingPathComponent("absent.p8").path] + urls)
        #expect(missing.status == 66, "\(missing.stderr)")
        let bad = try await CapturedRun.run(["run", Self.release, "--out", out.appendingPathComponent("r").path, "--env", "server",
                                             "--api-key", notAKey.path] + urls)
        #expect(bad.status == 65, "\(bad.stderr)")
        #expect(bad.stderr.contains("is not a PEM P-256 private key"), "\(bad.stderr)")
    }
}
