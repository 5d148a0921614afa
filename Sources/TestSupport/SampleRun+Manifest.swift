import Foundation
import EvidenceStore
import MatrixModel

extension SampleRun {
    /// The sample run's manifest as written at its start.
    public static var manifest: RunManifest {
        RunManifest(toolVersion: "0.1.0-test", context: context,
                    matrix: MatrixReference(path: "matrices/release.json", contents: matrixContents, name: "release"),
                    clock: "sandbox:5", accounts: [fresh, owner, member], startedAt: wallStart)
    }
}
