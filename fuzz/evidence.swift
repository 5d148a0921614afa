// libFuzzer harness: bytes as `matrix verify` reads evidence someone else produced, compiled by fuzz/run.sh into
// one module with Sources/EvidenceStore. The first byte picks the form:
// - even: the rest is a run archive's tar stream (what `gzip -d` gives), unpacked by the bounded tar reader
//   (RunArchive.unpack(tarStream:)) and, when it unpacks, verified as verify verifies an archive;
// - odd: the rest is a run directory's files, run.json, evidence.jsonl, junit.xml, summary.md and report.html in
//   that order, separated by lines `--next file--`, verified as verify verifies a directory.
// Either must end in a report or a RunArchiveError / VerificationFailure, never a crash or a hang; the report's
// lines must be printable as they are (no control character reaches a terminal).
import Foundation
import MatrixJSON

let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("matrix-fuzz-evidence-\(getpid())")
let limits = ArchiveLimits(maximumMembers: 64, maximumMemberSize: 1 << 20, maximumTotalSize: 4 << 20, maximumDuration: .seconds(5))
/// Verification as `matrix verify --root simulator` does it, without a matrix to re-judge records against.
func makeVerification() -> RunVerification {
    RunVerification(rootNames: ["simulator"], bundleId: nil, environment: nil, appAppleId: nil, limits: limits, loadMatrix: { _ in nil })
}
let separator = Array("\n--next file--\n".utf8)
let names = [RunDirectory.manifestFileName, "evidence.jsonl", "junit.xml", "summary.md", "report.html"]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEvidence(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let verification = makeVerification()
    try? FileManager.default.removeItem(at: scratch)
    defer { try? FileManager.default.removeItem(at: scratch) }
    if data[0] % 2 == 0 {
        let root = scratch.appendingPathComponent("archive")
        let unpacked: RunArchive.Unpacked
        do {
            unpacked = try RunArchive.unpack(tarStream: MemoryTarSource(bytes: bytes), into: root, limits: limits, interruption: .never,
                                            display: "fuzz.tar.gz")
        } catch is RunArchiveError {
            return 0
        } catch {
            violation("the tar reader threw something other than RunArchiveError: \(error)")
        }
        if let stray = unpacked.strayEntries.first(where: { $0.contains("..") || $0.hasPrefix("/") }) {
            violation("an archive member was written outside the folder: \(stray)")
        }
        check { () throws(VerificationFailure) in try verification.verifyUnpacked(unpacked, display: "fuzz.tar.gz") }
    } else {
        let run = scratch.appendingPathComponent("run")
        do {
            try FileManager.default.createDirectory(at: run, withIntermediateDirectories: true)
            for (name, content) in zip(names, split(bytes)) {
                try Data(content).write(to: run.appendingPathComponent(name))
            }
        } catch {
            violation("cannot write the run directory: \(error)")
        }
        check { () throws(VerificationFailure) in try verification.verifyDirectory(run, display: "fuzz-run") }
    }
    return 0
}

/// Runs one verification: a report whose every line is safe on a terminal, or a refusal.
func check(_ verify: () throws(VerificationFailure) -> RunVerificationReport) {
    do {
        let report = try verify()
        for line in report.lines(onlyProblems: false) + [report.summary] {
            if line.unicodeScalars.contains(where: { TerminalText.isUnsafe($0) }) {
                violation("a report line holds a control character: \(line.debugDescription)")
            }
        }
    } catch {
        // Refused, as most inputs are.
    }
}

/// `bytes` cut at each separator.
func split(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
    var parts: [ArraySlice<UInt8>] = []
    var start = 0
    var index = 0
    while index + separator.count <= bytes.count {
        if bytes[index] == separator[0], bytes[index..<index + separator.count].elementsEqual(separator) {
            parts.append(bytes[start..<index])
            index += separator.count
            start = index
        } else {
            index += 1
        }
    }
    parts.append(bytes[start...])
    return parts
}

/// Reports a broken property to libFuzzer, which saves the input: a message, then an abort.
func violation(_ message: String) -> Never {
    FileHandle.standardError.write(Data(("fuzz: " + message + "\n").utf8))
    abort()
}
