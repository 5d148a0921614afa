import Foundation
import Testing
import MatrixModel
import TestSupport

/// Inputs the fuzzers (fuzz/run.sh) reported, kept so that what they showed stays fixed.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    static let directory = Fixtures.packageDirectory.appendingPathComponent("Tests/MatrixModelTests/Fixtures/fuzz")

    /// Reported as a 13 s timeout by the storekit target while the machine was starved of memory by another
    /// process; it reads in milliseconds. Kept: a `.storekit` file with a product whose fields were mutated.
    @Test("A mutated .storekit file reported as slow reads at once, with its located problems", .timeLimit(.minutes(1)))
    func storeKitReportedSlow() throws {
        let bytes = try [UInt8](Data(contentsOf: Self.directory.appendingPathComponent("storekit-timeout-d494ac6c.storekit")))
        let (configuration, diagnostics) = StoreKitConfigurationReader.read(bytes, file: "fuzz.storekit")
        #expect(configuration == nil)
        #expect(diagnostics.map(\.rendered) == [
            "fuzz.storekit:232:31: error: control character in a string (write it as an escape such as \\n) "
                + "(at /scsubriptionGroups/0/localizations/4) [MX001]",
        ])
    }
}
