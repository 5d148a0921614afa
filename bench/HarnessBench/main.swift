// The app harness against --env local, in one process and one run: the release matrix through AppHarness.run
// with the careful store of examples/apps, beside the same matrix on the embedded reference app (--env local,
// as `matrix run` runs it), both signed and in memory. Prints each time (the best of the runs: on a shared
// machine the best run is the least disturbed), the ratio, and each beside its target:
//   harness   the careful store, release matrix              target: under 1 s
//   ratio     harness over --env local                       target: at most 3x
// Usage: harness-bench MATRIX [RUNS]   (bench/harness builds it in release and runs it)
// Exit status: 0 both targets met, 1 a target missed, 64 usage, 70 a run failed.
import AppHarness
import EvidenceStore
import Foundation
import LocalEnvironment
import MatrixEngine
import MatrixModel
import ReferenceApp
import StoreAppsHarness

/// Keeps nothing: the runs are timed, not inspected (the harness run's own result says whether it passed).
actor Discard: EvidenceSink {
    var count = 0
    func append(_ record: EvidenceRecord) async throws { count += 1 }
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

let arguments = CommandLine.arguments.dropFirst()
guard let path = arguments.first, let runs = Int(arguments.dropFirst().first ?? "5"), runs > 0 else {
    FileHandle.standardError.write(Data("usage: harness-bench MATRIX [RUNS]\n".utf8))
    exit(64)
}
guard let matrix = try? MatrixFile.read(path).matrix else {
    FileHandle.standardError.write(Data("error: \(path) does not load\n".utf8))
    exit(70)
}
let clock = ContinuousClock()
var harnessTimes: [Double] = []
var localTimes: [Double] = []
var steps = 0
do {
    for _ in 0..<runs {
        var start = clock.now
        let result = try await AppHarness.run(matrix: path, options: .init(reportsDirectory: nil)) { CarefulStoreApp() }
        harnessTimes.append(seconds(clock.now - start))
        guard result.passed else {
            FileHandle.standardError.write(Data("error: the careful store did not pass:\n\(result)\n".utf8))
            exit(70)
        }
        steps = result.records.count

        start = clock.now
        let context = RunContext(runID: "bench", environment: "local", build: "bench", device: "embedded simulator", os: "n/a")
        let sink = Discard()
        let summary = try await Runner(matrix: matrix, adapter: try LocalAdapter(app: .reference()), context: context).run(into: sink)
        localTimes.append(seconds(clock.now - start))
        guard summary.steps[.pass, default: 0] + summary.steps[.skipped, default: 0] == steps else {
            FileHandle.standardError.write(Data("error: --env local did not pass every step\n".utf8))
            exit(70)
        }
    }
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(70)
}
let harness = harnessTimes.min() ?? 0
let local = localTimes.min() ?? 0
let ratio = local > 0 ? harness / local : 0
let harnessMet = harness < 1
let ratioMet = ratio <= 3
func fixed(_ value: Double, _ digits: Int = 3) -> String { String(format: "%.\(digits)f", value) }
print("harness   careful store, \(steps) steps: \(fixed(harness)) s (best of \(runs))   target: under 1 s   \(harnessMet ? "met" : "MISSED")")
print("local     reference app, same matrix: \(fixed(local)) s")
print("ratio     harness / local: \(fixed(ratio, 2))x                 target: at most 3x  \(ratioMet ? "met" : "MISSED")")
print(#"{"steps": \#(steps), "harnessSeconds": \#(fixed(harness, 4)), "localSeconds": \#(fixed(local, 4)), "ratio": \#(fixed(ratio)), "runs": \#(runs)}"#)
exit(harnessMet && ratioMet ? 0 : 1)
