import AppHarness
import Foundation
import StoreAppsHarness
import TestSupport
import Testing
import Threading

/// The release matrix against the example stores of `examples/apps`, through the app harness.
@Suite("Example stores on the release matrix")
struct ExampleStoresTests {
    static let release = Fixtures.packageDirectory.appendingPathComponent("matrices/release.json").path

    @Test("The careful store passes every step of the release matrix, and the run directory holds the evidence")
    func careful() async throws {
        let reports = try MatrixBinary.scratchDirectory("app-harness")
        defer { try? FileManager.default.removeItem(at: reports) }
        let result = try await AppHarness.expectPasses(matrix: Self.release, options: .unhurried(reportsDirectory: reports.path)) { CarefulStoreApp() }
        #expect(result.failures.isEmpty, "\(result)")
        #expect(result.records.count == 153 && result.summary.steps[.pass] == 153)
        let run = try #require(result.runDirectory)
        #expect(run.path.hasPrefix(reports.path + "/app/"))
        for file in ["run.json", "evidence.jsonl", "junit.xml", "summary.md", "report.html"] {
            #expect(FileManager.default.fileExists(atPath: run.appendingPathComponent(file).path), "\(file)")
        }
        let manifest = try String(contentsOf: run.appendingPathComponent("run.json"), encoding: .utf8)
        #expect(manifest.contains(#""environment" : "app""#) && manifest.contains(#""status" : "complete""#))
        // The embedded App Store signs with the simulator PKI: matrix verify trusts its root for app runs by default.
        let verified = try await MatrixBinary.run(["verify", run.path, "--quiet"])
        #expect(verified.status == 0, "\(verified.stderr)")
    }

    @Test("The careful store served as a driver (examples/apps/CarefulStoreDriver) passes the release matrix through matrix run --env exec")
    func asDriver() async throws {
        let directory = try MatrixBinary.scratchDirectory("app-driver")
        defer { try? FileManager.default.removeItem(at: directory) }
        let driver = MatrixBinary.url.deletingLastPathComponent().appendingPathComponent("careful-store-driver").path
        let run = try await MatrixBinary.run(["run", Self.release, "--env", "exec", "--driver", driver, "--out", directory.path, "--jobs", "2"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("34 cases: 34 pass · 153 steps: 153 pass"), "\(run.stderr)")
        let runs = try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("app-driver").path)
        #expect(runs.count == 1, "evidence under <out>/app-driver/<build>/: \(runs)")
    }

    /// The store's clock is virtual: it starts at 2026-01-01T12:00:00Z and moves only when a step moves it, so it
    /// is never the wall clock. A store that compares a pass's expiry with `Date()` disagrees with the store at
    /// the first step that looks (docs/app-harness.md, "Time").
    @Test("What a driver's code prints goes to its log: serveDriver keeps stdout for the protocol")
    func printsGoToTheLog() async throws {
        let driver = MatrixBinary.url.deletingLastPathComponent().appendingPathComponent("careful-store-driver")
        // Standard input is /dev/null: the driver serves, meets the end of its input and exits.
        let ended = try await ChildProcess.run(driver, [])
        #expect(ended.exit == ChildProcess.Exit(status: 0, signalled: false))
        #expect(ended.stdout.isEmpty, "stdout carries only protocol lines: \(ended.stdout)")
        #expect(ended.stderr.contains("careful-store-driver: serving the careful store"), "\(ended.stderr)")
    }

    @Test("A store that compares expiry with Date() instead of the store's clock fails the non-renewing cases, and only them")
    func wrongClock() async throws {
        let result = try await HeavyWork.run { try await AppHarness.run(matrix: Self.release, options: .unhurried(reportsDirectory: nil)) { CarefulStoreApp(now: { Date() }) } }
        let failed = result.failures.filter { $0.verdict == "fail" }
        #expect(Set(failed.map(\.caseID)) == ["non-renewing/season-pass", "non-renewing/week-pass"], "\(result)")
        #expect(result.failures.allSatisfy { $0.caseID.hasPrefix("non-renewing/") })
        // The week pass the store sold on 2026-01-01 lasts 7 days: by the wall clock it has long expired.
        let week = try #require(failed.first { $0.caseID == "non-renewing/week-pass" })
        #expect(week.step == 1 && week.reason.contains(#"expected ["week"], observed []"#), "\(week)")
    }

    @Test("expectPasses records one issue per failing step, at the step's line and column in the matrix")
    func issuesAtMatrixLocations() async throws {
        let recorded = Locked<[SourceLocation]>([])
        try await withKnownIssue {
            _ = try await AppHarness.expectPasses(matrix: Self.release, options: .unhurried(reportsDirectory: nil)) { TutorialStoreApp() }
        } matching: { issue in
            if let location = issue.sourceLocation { recorded.withLock { $0.append(location) } }
            return issue.sourceLocation?.filePath == Self.release
        }
        let locations = recorded.withLock { $0 }
        #expect(locations.count == Self.predicted.count)
        #expect(locations.allSatisfy { $0.line > 1 && $0.column > 1 })
    }

    /// The steps the tutorial store's mistakes make fail (later steps of their cases are blocked), each with the
    /// mistake that explains it (see examples/apps/TutorialStore):
    /// 1. the entitlement loop returns at the first product not owned: Pro comes first, so whatever the customer
    ///    owns besides Pro is never seen unless they own Pro, and after Pro only up to the next product not owned;
    /// 2. a product is never removed when its entitlement goes;
    /// 3. no listener at launch: what waits at launch is not delivered.
    /// The release matrix's cases on a price increase and a renewal-date extension buy Plus Monthly without Pro, so
    /// mistake 1 fails their purchase step like every other Plus case (and the launch of the member who has Plus
    /// through the family and subscribes too, like the other member's); the cases on another storefront's price and on
    /// a consumable's refund request pass (the tutorial store reports no prices, so displayPrice is not judged).
    static let predicted: [String: Int] = [
        "fresh-purchase/plus-monthly #1": 1, "pending/ask-to-buy-approved #2": 1, "restore/second-device #2": 1,
        "renewal/plus-monthly #1": 1, "renewal/while-closed #1": 1, "cancellation/plus-monthly #1": 1,
        "grace-period/plus-monthly #1": 1, "billing-retry/recovered #1": 1, "billing-retry/gives-up #1": 1,
        "refund/pro #2": 2, "refund/plus-monthly #1": 1, "upgrade/plus-to-premium #1": 1, "downgrade/premium-to-plus #1": 1,
        "family-sharing/member-revoked #0": 1, "family-sharing/own-beside-shared #0": 1, "family-sharing/non-consumable #3": 2,
        "environment-limit/sandbox-12-renewals #1": 1, "environment-limit/testflight-daily-renewals #1": 1,
        "consumable/killed-before-delivery #2": 3, "non-renewing/season-pass #1": 1, "non-renewing/week-pass #1": 1,
        "renewal/extended #1": 1, "price-increase/plus-monthly-consented #1": 1, "price-increase/plus-monthly-unanswered #1": 1,
    ]

    @Test("The tutorial store fails exactly the steps its three mistakes predict, each at its place in the matrix")
    func tutorial() async throws {
        let result = try await HeavyWork.run { try await AppHarness.run(matrix: Self.release, options: .unhurried(reportsDirectory: nil)) { TutorialStoreApp() } }
        let failed = result.failures.filter { $0.verdict != "blocked" }
        #expect(Set(failed.map { "\($0.caseID) #\($0.step)" }) == Set(Self.predicted.keys), "\(result)")
        // Every other step of a case with a failure is blocked; cases without one pass whole.
        let failedCases = Set(failed.map(\.caseID))
        #expect(result.failures.allSatisfy { $0.verdict != "blocked" || failedCases.contains($0.caseID) })
        #expect(failed.allSatisfy { $0.verdict == "fail" })
        // Located at the step in the matrix file, line and column.
        let refund = try #require(failed.first { $0.caseID == "refund/pro" })
        #expect(refund.file == Self.release && refund.line > 1 && refund.column > 1)
        let line = try String(contentsOfFile: Self.release, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)[refund.line - 1]
        #expect(line.contains(#""action": "refund""#))
        #expect(Set(Self.predicted.values) == [1, 2, 3], "each mistake shows")
    }
}
