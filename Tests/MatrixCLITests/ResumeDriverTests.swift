import Foundation
import Testing
@testable import TestSupport

/// A run directory is data, never code: resuming a run whose run.json names a driver command runs it only when
/// the person resuming gives the same command again, so a CI artifact cannot make `--resume` execute anything.
@Suite("matrix run --resume: the recorded driver")
struct ResumeDriverTests {
    /// A copy of the release run, interrupted, whose run.json names `driver`.
    static func run(naming driver: [String]) async throws -> ReleaseRun {
        let release = try await ReleaseRun.copy()
        try VerifyMissingFieldTests.editManifest(release.run) { manifest in
            manifest["status"] = "interrupted"
            manifest.removeValue(forKey: "endedAt")
            manifest["driver"] = driver
        }
        return release
    }

    @Test("A driver command planted in run.json is not run by --resume without --driver (64); the message shows it")
    func planted() async throws {
        let marker = FileManager.default.temporaryDirectory.appendingPathComponent("matrix-pwned-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: marker) }
        let release = try await Self.run(naming: ["/bin/sh", "-c", "touch \(marker.path); echo '\u{1B}[2J'"])
        defer { release.remove() }
        let result = try await CapturedRun.run(["run", "--resume", release.run.path])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: marker.path), "the planted command ran")
        #expect(result.stderr.contains("was run by the driver `/bin/sh -c 'touch \(marker.path); echo '\\''\\u{1B}[2J'\\'''`, which its run.json names; "
                                       + "a run directory never starts a program by itself"), "\(result.stderr)")
        #expect(!result.stderr.unicodeScalars.contains("\u{1B}"))
    }

    @Test("--driver with another command is refused (64) and nothing runs")
    func other() async throws {
        let marker = FileManager.default.temporaryDirectory.appendingPathComponent("matrix-pwned-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: marker) }
        let release = try await Self.run(naming: ["/bin/sh", "-c", "touch \(marker.path)"])
        defer { release.remove() }
        let result = try await CapturedRun.run(["run", "--resume", release.run.path, "--driver", "matrix driver local"])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("--driver `matrix driver local` is not the driver"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: marker.path))
    }

    @Test("--driver on a run without a driver is a usage error")
    func local() async throws {
        let release = try await ReleaseRun.copy()
        defer { release.remove() }
        try UntrustedInputTests.markInterrupted(release.run)
        let result = try await CapturedRun.run(["run", "--resume", release.run.path, "--driver", "matrix driver local"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--driver is for runs of --env exec"), "\(result.stderr)")
    }
}
