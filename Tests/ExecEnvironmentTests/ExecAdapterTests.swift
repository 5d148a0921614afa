import Foundation
import Testing
import ExecEnvironment
import MatrixEngine

/// Every way a driver can misbehave, with the small scripts in `Drivers/`: a 2 s step timeout where the timeout
/// is the subject, 60 s elsewhere (so that a loaded machine does not turn a slow answer into a timeout). The
/// conversations run at high priority (``DriverHarness/conversing(at:_:)``), so that the timeouts measure the
/// drivers, not how long the suite's tasks of default priority keep a thread from them.
///
/// A run that hangs instead of ending exceeds the time limit (generous: on a loaded machine each await here
/// queues behind the whole suite's); the reasons prove that the short timeout, not the 30 s default, applied.
@Suite("Exec adapter with misbehaving drivers", .timeLimit(.minutes(5)))
struct ExecAdapterTests {
    @Test("a driver that never answers a step: error after the timeout, rest of the case blocked, a fresh driver for the next case")
    func hangingDriver() async throws {
        // At default priority, the stderr reader's, so that the reason, which quotes the driver's stderr, has
        // it whenever the timeout comes (see `conversing`); 20 s, not 2 s, so that the steps answered at once
        // reach the adapter in time on a loaded machine, where tasks of default priority wait seconds.
        let run = try await DriverHarness.run("hang.sh", timeout: .seconds(20), priority: .medium)
        #expect(run.records.map(\.verdict) == [.pass, .error, .blocked, .pass])
        let reason = try #require(run.record("first", 1)?.reason)
        #expect(reason.hasPrefix("the driver did not answer perform within 20 s; it was stopped"))
        #expect(reason.contains("driver stderr: hang: purchase received, not answering"))
        #expect(run.record("first", 2)?.reason == "blocked: step 1 (purchase) errored")
        let pids = run.driverPIDs
        #expect(pids.count == 2 && pids[0] != pids[1], "the second case runs on a new driver: \(pids)")
        #expect(await DriverHarness.unreapedChildren(pids) == [])
    }

    @Test("a driver that floods its output with lines for no request still times out on the step, and a fresh driver runs the next case")
    func floodingDriver() async throws {
        let run = try await DriverHarness.run("flood.sh", timeout: .seconds(2))
        #expect(run.records.map(\.verdict) == [.pass, .error, .blocked, .pass])
        let reason = try #require(run.record("first", 1)?.reason)
        #expect(reason.hasPrefix("the driver did not answer perform within 2 s; it was stopped"))
        #expect(await DriverHarness.unreapedChildren(run.driverPIDs) == [])
    }

    @Test("a driver that crashes mid-case: error naming its exit status and last stderr, rest blocked, a fresh driver next")
    func crashingDriver() async throws {
        // At default priority, the stderr reader's: the reason quotes what the driver wrote just before it
        // exited, which the adapter waits under a second for; in one pool the reader's work, which came
        // first, runs first (see `conversing`).
        let run = try await DriverHarness.run("crash.sh", priority: .medium)
        #expect(run.records.map(\.verdict) == [.pass, .error, .blocked, .pass])
        #expect(run.record("first", 1)?.reason == "the driver exited with status 3 while handling perform — driver stderr: crash: the simulator went away")
        #expect(run.record("first", 0)?.observed?.access == [], "evidence before the crash is kept")
        let pids = run.driverPIDs
        #expect(pids.count == 2 && pids[0] != pids[1])
        #expect(await DriverHarness.unreapedChildren(pids) == [])
    }

    @Test("a driver that writes a line that is not JSON: error quoting the line, cut to 200 characters")
    func garbageDriver() async throws {
        let run = try await DriverHarness.run("garbage.sh")
        #expect(run.records.map(\.verdict) == [.pass, .error, .blocked, .pass])
        let reason = try #require(run.record("first", 1)?.reason)
        #expect(reason.contains(#"(it is not a JSON object with the protocol's members): "Purchase sheet presented <garbage> 0123456789"#))
        #expect(reason.contains("…\" (379 bytes); it was stopped"))
        #expect(!reason.contains("END-OF-GARBAGE"))
        let pids = run.driverPIDs
        #expect(pids.count == 2 && pids[0] != pids[1], "a driver that wrote garbage is replaced")
        #expect(await DriverHarness.unreapedChildren(pids) == [])
    }

    @Test("a driver that answers with an error response: error with its message; the driver stays for the next case")
    func errorResponse() async throws {
        let run = try await DriverHarness.run("error.sh")
        #expect(run.records.map(\.verdict) == [.pass, .error, .blocked, .pass])
        #expect(run.record("first", 1)?.reason == "the driver answered perform with error 1000: the purchase sheet did not appear")
        let pids = run.driverPIDs
        #expect(pids.count == 2 && pids[0] == pids[1], "the same driver runs the next case")
        #expect(await DriverHarness.unreapedChildren(pids) == [])
    }

    @Test("unsupported actions are skipped: answered unsupported with a reason, or never sent when not announced")
    func unsupportedActions() async throws {
        // `second` starts with a relaunch, which the driver does not announce (it would answer it if asked).
        let source = DriverHarness.matrixSource.replacingOccurrences(
            of: #""id": "second", "kind": "fresh-purchase", "account": "a", "steps": ["#,
            with: #""id": "second", "kind": "fresh-purchase", "account": "a", "steps": [{"action": "relaunch"}, "#)
        let run = try await DriverHarness.run("unsupported.sh", source: source)
        #expect(run.records.map(\.verdict) == [.pass, .skipped, .skipped, .skipped, .skipped])
        #expect(run.record("first", 1)?.reason == "the unsupported driver does not support purchase: no payment sheet in this environment")
        #expect(run.record("first", 2)?.reason == "step 1 (purchase) was skipped: the unsupported driver does not support purchase: no payment sheet in this environment")
        #expect(run.record("second", 0)?.reason == "the unsupported driver does not support relaunch")
        #expect(run.record("second", 0)?.observed == nil, "an action the driver did not announce is not sent")
        #expect(run.description.name == "unsupported")
        #expect(run.description.device == "test device")
    }

    @Test("a driver that leaves serverNotifications out has not observed it: a step expecting only that passes as not judged")
    func serverNotificationsLeftOut() async throws {
        let source = DriverHarness.matrixSource.replacingOccurrences(
            of: #"{"action": "launch", "expect": {"access": []}}]}"#,
            with: #"{"action": "launch", "expect": {"serverNotifications": true}}]}"#)
        let run = try await DriverHarness.run("plain.sh", source: source)
        let record = try #require(run.record("second", 0))
        #expect(record.verdict == .pass)
        #expect(record.observed?.notObserved?.contains("serverNotifications") == true)
        #expect(record.passedWithNothingObserved, "nothing of the step's expectation was observed")
        #expect(run.record("first", 0)?.passedWithNothingObserved == false, "access was observed")
    }

    @Test("reset may refuse a whole case (every step skipped); notifications the protocol does not define are ignored")
    func resetRefusesACase() async throws {
        // A generous step timeout: the suite shares two cores, and a slow step would be an error, not this test's point.
        let run = try await DriverHarness.run("refuses.sh", timeout: .seconds(60))
        let first = run.records.filter { $0.case == "first" }
        #expect(first.allSatisfy { $0.verdict == .pass }, "\(first.map { "\($0.step) \($0.verdict.rawValue): \($0.reason ?? "")" })")
        let second = run.records.filter { $0.case == "second" }
        #expect(!second.isEmpty && second.allSatisfy { $0.verdict == .skipped })
        #expect(run.record("second", 0)?.reason == "the misbehaving driver cannot run this case: this farm has no second account")
    }

    @Test("a driver announcing an action that does not exist is refused at initialize")
    func unknownActionName() async throws {
        let matrix = try DriverHarness.matrix()
        do {
            try await DriverHarness.conversing { _ = try await ExecAdapter.start(DriverHarness.configuration("typo.sh"), params: DriverHarness.params(matrix)) }
            Issue.record("a driver announcing \"purchse\" was accepted")
        } catch let error as AdapterError {
            #expect(error.environmentUnavailable)
            #expect(error.message.contains(#"the driver announces actions matrix does not know: "purchse""#))
        }
    }

    @Test("a driver naming its environment after the embedded reference (local, in any case) is refused at initialize")
    func embeddedEnvironmentName() async throws {
        let matrix = try DriverHarness.matrix()
        do {
            try await DriverHarness.conversing {
                _ = try await ExecAdapter.start(DriverHarness.configuration("embedded-name.sh"), params: DriverHarness.params(matrix))
            }
            Issue.record("a driver calling its environment \"Local\" was accepted")
        } catch let error as AdapterError {
            #expect(error.environmentUnavailable)
            #expect(error.message.contains(#"the environment name "Local" is the embedded reference environment's; a driver names its own"#), "\(error.message)")
        }
    }

    @Test("a driver naming its environment after another built-in environment is refused at initialize, so no driver writes a server or app run",
          arguments: ["server", "app", "sandbox", "testflight", "xcode", "exec", "SERVER"])
    func builtInEnvironmentNames(_ name: String) async throws {
        let matrix = try DriverHarness.matrix()
        var named = DriverHarness.configuration("embedded-name.sh")
        named.arguments.append(name)
        let configuration = named
        do {
            try await DriverHarness.conversing { _ = try await ExecAdapter.start(configuration, params: DriverHarness.params(matrix)) }
            Issue.record("a driver calling its environment \"\(name)\" was accepted")
        } catch let error as AdapterError {
            #expect(error.environmentUnavailable)
            #expect(error.message.contains("the environment name \"\(name)\" is the built-in \(name.lowercased()) environment's; a driver names its own"),
                    "\(error.message)")
        }
    }

    @Test("a driver that announces a longer wait with a progress notification is given it")
    func progressExtendsTheDeadline() async throws {
        let run = try await DriverHarness.run("slow.sh", timeout: .seconds(2))
        #expect(run.records.map(\.verdict) == [.pass, .pass, .pass, .pass])
        #expect(run.elapsed >= .seconds(3), "the purchase took longer than the 2 s step timeout")
    }

    @Test("a driver that never answers initialize: the environment is unavailable after the timeout, with its stderr")
    func silentDriver() async throws {
        let matrix = try DriverHarness.matrix()
        // At default priority, as the crash test: the message quotes the driver's stderr.
        do {
            _ = try await ExecAdapter.start(DriverHarness.configuration("silence.sh", timeout: .seconds(2)), params: DriverHarness.params(matrix))
            Issue.record("a silent driver was accepted")
        } catch {
            #expect(error.environmentUnavailable)
            #expect(error.message.hasPrefix("the exec environment is unavailable: the driver did not answer initialize within 2 s"))
            #expect(error.message.contains("driver stderr: silence: started, will not answer"))
        }
    }

    @Test("a driver that asks for a short wait with progress and then never answers: the message names that wait, not the step timeout")
    func brokenProgressPromise() async throws {
        let matrix = try DriverHarness.matrix()
        do {
            _ = try await ExecAdapter.start(DriverHarness.configuration("promises.sh", timeout: .seconds(60)), params: DriverHarness.params(matrix))
            Issue.record("a driver that never answers was accepted")
        } catch {
            #expect(error.message.hasPrefix("the exec environment is unavailable: the driver did not answer initialize within the 0.3 s "
                + "its last progress notification asked for (waitMs); it was stopped"), "\(error.message)")
        }
    }

    @Test("a driver that does not exist: the environment is unavailable at once")
    func missingDriver() async throws {
        let matrix = try DriverHarness.matrix()
        let configuration = ExecAdapter.Configuration(arguments: ["/nonexistent/driver.sh"], stepTimeout: .seconds(1))
        await #expect(throws: AdapterError("the exec environment is unavailable: the driver /nonexistent/driver.sh is not an executable file",
                                           environmentUnavailable: true)) {
            _ = try await ExecAdapter.start(configuration, params: DriverHarness.params(matrix))
        }
    }

    @Test("several jobs: one driver per job, records still in matrix order")
    func severalJobs() async throws {
        let cases = (1...6).map { index in
            #"{"id": "case-\#(index)", "kind": "restore", "account": "a", "steps": [{"action": "launch", "expect": {"access": []}}, {"action": "relaunch", "expect": {"access": ["pro"]}}]}"#
        }.joined(separator: ",")
        let source = #"""
            {"schemaVersion": 1, "name": "jobs", "app": {"bundleId": "com.example.storekitmatrix"}, "catalog": "Products.storekit",
             "tiers": {"pro": ["com.example.storekitmatrix.pro"]}, "accounts": {"a": {}}, "cases": [\#(cases)]}
            """#
        let run = try await DriverHarness.run("crash.sh", jobs: 2, source: source)
        #expect(run.records.count == 12)
        #expect(run.records.allSatisfy { $0.verdict == .pass })
        #expect(run.records.map(\.case) == (1...6).flatMap { ["case-\($0)", "case-\($0)"] })
        #expect(Set(run.driverPIDs).count == 2)
        #expect(await DriverHarness.unreapedChildren(run.driverPIDs) == [])
    }
}
