import EvidenceStore
import EvidenceVerification
import FileIO
import Foundation
import MatrixEngine
import MatrixModel

/// `matrix merge RUN_DIR… --out DIR`: makes one run of the slices `matrix run --shard K/N` wrote on several
/// machines, in matrix order, refusing slices of different matrices or with overlapping cases.
struct MergeCommand {
    let console: Console

    static let spec = CommandSpec(
        ["merge"], summary: "Join the slices of a sharded run (run --shard K/N) into one run",
        usage: ["RUN_DIR… --out DIR [--matrix MATRIX]"],
        discussion: """
            Joins run directories written with `matrix run --shard K/N` into one run directory DIR: the evidence in \
            matrix order, renumbered, with reports and a manifest naming the slices. The slices must come from the \
            same matrix and catalog (same SHA-256) and share environment, build, device, OS, clock, app fault and \
            signed environment; no case may appear in two of them. The merged run is \
            complete when every case of the matrix (of the selection, for slices of a run that selected cases with \
            --case, --kind, --tag or --profile) is in it and every slice was complete.
            Exit status: 0 merged into a complete run, 1 merged but incomplete (a case in no slice or short of steps, \
            or a slice that did not complete: the run is kept, marked interrupted), 64 usage, 65 slices that do not \
            fit together, 66 unreadable slice, 74 cannot write. The steps' verdicts do not change the exit status \
            (the summary line and the reports give them).
            """,
        positionals: [Positional("RUN_DIR…", "the slices: run directories of `matrix run --shard K/N`")],
        options: [
            .value(.out, "DIR", "the merged run directory to create", required: true),
            .value(.matrix, "MATRIX", "the matrix file, when not at the path the slices recorded"),
        ])

    func execute(_ arguments: [String]) async throws(CommandFailure) -> ExitCode {
        guard let args = try Arguments.parse(arguments, for: Self.spec, on: console) else { return .success }
        guard !args.positionals.isEmpty else { throw .usage("missing RUN_DIR (the slices to merge)") }
        guard let out = args.value(.out) else { throw .usage("missing --out DIR (the merged run directory to create)") }

        // One pass over each slice's evidence indexes where each case's records are; the records are read again
        // one at a time when the merged evidence is written, so that no slice is held in memory.
        var slices: [(manifest: RunManifest, evidence: URL)] = []
        var index: [String: (slice: Int, lines: [(step: Int, range: Range<Int64>)])] = [:]
        var overlap: (id: String, first: Int, second: Int)?
        var tornSlice = false
        let given = args.positionals.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        if let twice = given.indices.first(where: { given[..<$0].contains(given[$0]) }) {
            throw .usage("\(args.positionals[twice]) is given twice; name each slice once")
        }
        let outPath = URL(fileURLWithPath: out).standardizedFileURL.path
        if let inside = given.indices.first(where: { outPath == given[$0] || outPath.hasPrefix(given[$0] + "/") }) {
            throw .usage("--out \(out) is inside the slice \(args.positionals[inside]), whose files run.json lists; merge elsewhere")
        }
        for path in args.positionals {
            let directory = RunDirectory(url: URL(fileURLWithPath: path))
            guard FileManager.default.fileExists(atPath: directory.manifestURL.path) else {
                throw CommandFailure("\(path) is not a run directory (no run.json)", code: FileManager.default.fileExists(atPath: path) ? .dataError : .noInput)
            }
            let slice = slices.count
            do {
                let manifest = try directory.readManifest()
                // A slice that ended lists its evidence's SHA-256: evidence changed since then is not merged.
                if manifest.endedAt != nil, let digest = manifest.files[RunDirectory.evidenceFileName],
                   let finding = FileIntegrity.check(directory: directory.url, expected: [RunDirectory.evidenceFileName: digest])
                       .first(where: { $0.path == RunDirectory.evidenceFileName }), finding.status != .ok {
                    throw CommandFailure("\(path)/\(RunDirectory.evidenceFileName) is \(finding.status.rawValue): it does not match the SHA-256 "
                                         + "its run.json recorded when the run ended; merge only evidence as it was written (matrix verify names what changed)",
                                         code: .dataError)
                }
                let torn = try EvidenceReader.forEachLine(in: directory.evidenceURL) { record, range in
                    if let owner = index[record.case]?.slice, owner != slice {
                        if overlap == nil { overlap = (record.case, owner, slice) }
                        return
                    }
                    index[record.case, default: (slice, [])].lines.append((record.step, range))
                }
                if torn {
                    console.warning("\(path): the torn last evidence line was left out")
                    tornSlice = true
                }
                slices.append((manifest, directory.evidenceURL))
            } catch let failure as CommandFailure {
                throw failure
            } catch {
                throw CommandFailure("cannot read \(path): \(error)", code: .dataError)
            }
        }
        let first = slices[0].manifest
        for (path, slice) in zip(args.positionals, slices) {
            if slice.manifest.matrix.sha256 != first.matrix.sha256 {
                throw CommandFailure("\(path) ran another matrix (SHA-256 \(slice.manifest.matrix.sha256.prefix(12))…, not \(first.matrix.sha256.prefix(12))…); "
                                     + "slices must come from the same matrix", code: .dataError)
            }
            if slice.manifest.environment != first.environment {
                throw CommandFailure("\(path) ran in environment \(slice.manifest.environment), not \(first.environment)", code: .dataError)
            }
            // One run's evidence is about one build on one device and OS, on one clock, with one app: slices
            // that differ in any of these are different runs, whatever their matrix.
            for (name, mine, theirs) in Self.settings(of: slice.manifest, first) where mine != theirs {
                throw CommandFailure("\(path) ran with \(name) \(mine ?? "(none)"), not \(theirs ?? "(none)") as \(args.positionals[0]) did; "
                                     + "slices of one run must share their settings", code: .dataError)
            }
        }
        if let overlap {
            throw CommandFailure("case \"\(overlap.id)\" is in both \(args.positionals[overlap.first]) and \(args.positionals[overlap.second]); "
                                 + "slices must not overlap", code: .dataError)
        }

        guard let matrixPath = args.value(.matrix)
            ?? RecordedMatrix.locate(first, runDirectory: URL(fileURLWithPath: args.positionals[0])) else {
            throw CommandFailure("the slices' matrix \(first.matrix.path) is not found from here nor from the directories above "
                                 + "\(args.positionals[0]); name it with --matrix MATRIX", code: .noInput)
        }
        let (loaded, _, bytes) = try InputFiles.loadMatrix(matrixPath)
        guard let matrix = loaded else { throw CommandFailure("\(matrixPath) is not a valid matrix", code: .dataError) }
        guard MatrixReference(path: matrixPath, contents: Data(bytes), name: matrix.name).sha256 == first.matrix.sha256 else {
            throw CommandFailure("\(matrixPath) is not the matrix the slices ran (its SHA-256 differs); pass the right one with --matrix",
                                 code: .dataError)
        }

        let outURL = URL(fileURLWithPath: out)
        let runID = outURL.lastPathComponent
        // A selected run (`--case`, `--kind`, `--tag`, `--profile`) is complete with its selected cases.
        let wanted = first.selectedCases.map(Set.init)
        let runCases = matrix.cases.filter { wanted?.contains($0.id) ?? true }
        let missing = runCases.filter { index[$0.id] == nil }.map(\.id)
        // A case counts as merged only with every one of its steps.
        let short = runCases.filter { matrixCase in
            index[matrixCase.id].map { Set($0.lines.map(\.step)).count < matrixCase.steps.count } ?? false
        }.map(\.id)
        let incomplete = !missing.isEmpty || !short.isEmpty || tornSlice || slices.contains { $0.manifest.status != .complete }
        let finished: RunManifest
        var passesWithoutExpectation = 0
        var passesWithNothingObserved = 0
        do {
            // The folder the merged run goes in may not exist yet (`--out merged/release` in a fresh CI job).
            try FileManager.default.createDirectory(at: outURL.deletingLastPathComponent(), withIntermediateDirectories: true)
            let directory = try RunDirectory.create(at: outURL)
            let writer = try EvidenceWriter(directory: directory)
            var manifest = first
            manifest.runId = runID
            manifest.shard = nil
            manifest.shardCases = nil
            manifest.mergedFrom = slices.map(\.manifest.runId)
            // Each slice stopped during at most one case (one killed outright did not say which: its case that lacks
            // steps); those stay unfinished in the merged run.
            let named = slices.reduce(Set(short)) { $0.union($1.manifest.unfinished) }
            let unfinished = matrix.cases.map(\.id).filter(named.contains)
            manifest.unfinishedCases = unfinished.isEmpty ? nil : unfinished
            await writer.markUnfinished(named)
            manifest.startedAt = slices.map(\.manifest.startedAt).min() ?? first.startedAt
            manifest.endedAt = nil
            manifest.status = .interrupted
            manifest = try directory.writeManifest(manifest)
            let files = try slices.map { try EvidenceFile(url: $0.evidence) }
            var seq = 0
            for matrixCase in matrix.cases {
                let steps = matrixCase.steps
                guard let entry = index[matrixCase.id] else { continue }
                for line in entry.lines.sorted(by: { $0.step < $1.step }) {
                    var record = try files[entry.slice].record(at: line.range)
                    seq += 1
                    record.seq = seq
                    record.run = runID
                    if record.verdict == .pass, steps.indices.contains(record.step), steps[record.step].expect == nil {
                        passesWithoutExpectation += 1
                    }
                    if record.passedWithNothingObserved { passesWithNothingObserved += 1 }
                    try await writer.append(record)
                }
            }
            try await writer.sync()
            let ended = slices.compactMap(\.manifest.endedAt).max().flatMap { try? Date($0, strategy: .iso8601) } ?? Date()
            finished = try await writer.finish(manifest, status: incomplete ? .interrupted : .complete, endedAt: ended)
        } catch let error as EvidenceWriteError {
            throw CommandFailure("cannot write \(out): \(error)", code: error.code == .runDirectoryExists ? .usage : .ioError)
        } catch {
            throw CommandFailure("cannot merge into \(out): \(error)", code: .dataError)
        }
        for (path, slice) in zip(args.positionals, slices) where slice.manifest.status != .complete {
            console.warning("\(path) did not complete (run.json says \(slice.manifest.status.rawValue)); the merged run is marked interrupted")
        }
        if !short.isEmpty {
            console.warning("\(short.count) case\(short.count == 1 ? " lacks steps in its slice" : "s lack steps in their slices") (e.g. \(short.prefix(3).joined(separator: ", "))); the merged run is marked interrupted")
        }
        if !missing.isEmpty {
            console.warning("\(missing.count) case\(missing.count == 1 ? " has" : "s have") no step in any slice (e.g. \(missing.prefix(3).joined(separator: ", ")): "
                            + "not reached by a slice that did not complete, or in a shard not given); the merged run is marked interrupted")
        }
        console.info("merged \(slices.count) slice\(slices.count == 1 ? "" : "s"), \(index.values.map(\.lines.count).reduce(0, +)) steps of \(index.count) cases into \(out)", always: true)
        var summary = RunSummary(finished.counts, interrupted: incomplete)
        summary.passesWithoutExpectation = passesWithoutExpectation
        summary.passesWithNothingObserved = passesWithNothingObserved
        console.info(ProgressPrinter.summaryLine(summary, directory: out), always: true)
        if incomplete {
            // A merged run is not resumed: its cases keep matrix order only as the slices give them.
            console.info("to complete it, resume each slice that did not complete (`matrix run --resume SLICE`) and run each missing "
                         + "shard (`matrix run MATRIX --shard K/N`), then merge again", always: true)
        }
        return incomplete ? .failure : .success
    }

    /// The settings slices of one run must share, as (name, this slice's value, the first slice's value).
    static func settings(of slice: RunManifest, _ first: RunManifest) -> [(String, String?, String?)] {
        [("build", slice.build, first.build), ("device", slice.device, first.device), ("os", slice.os, first.os),
         ("clock", slice.clock, first.clock), ("app fault", slice.appFault, first.appFault),
         ("signed environment", slice.signedEnvironment, first.signedEnvironment),
         ("catalog SHA-256", slice.matrix.catalogSHA256, first.matrix.catalogSHA256),
         ("selection", slice.selection?.summary, first.selection?.summary)]
    }
}

extension RunSummary {
    /// The summary of a run read back from its manifest's counts (verdicts with no case or step left out, as a
    /// run's own summary leaves them).
    init(_ counts: RunCounts, interrupted: Bool) {
        self.init()
        for verdict in Verdict.allCases {
            if counts.cases[verdict] > 0 { cases[verdict] = counts.cases[verdict] }
            if counts.steps[verdict] > 0 { steps[verdict] = counts.steps[verdict] }
        }
        self.interrupted = interrupted
    }
}
