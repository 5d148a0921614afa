import Foundation
import Testing
import MatrixModel
import TestSupport

/// `-V` and `--version`, as command-line tools spell them.
@Suite("Version flags")
struct VersionFlagTests {
    let release = Fixtures.packageDirectory.appendingPathComponent("matrices/release.json")

    @Test("-V and --version print the version on stdout and exit 0", arguments: ["-V", "--version"])
    func version(flag: String) async throws {
        let result = try await CommandHarness.run([flag])
        #expect(result.status == 0)
        #expect(!result.stdout.isEmpty && result.stdout.hasSuffix("\n") && result.stderr.isEmpty)
    }
}
