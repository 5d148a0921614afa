import EvidenceArchive
import EvidenceStore
import Foundation
import MatrixJSON
import MatrixModel
import SignedData
import Signing

/// The result of checking a run directory or a run archive: every file against the digests recorded for it,
/// and every signed item of the evidence.
package struct RunVerificationReport {
    /// A file finding and the list it was checked against (`run.json` or `archive.json`).
    struct FileLine {
        var source: String
        var finding: FileFinding
    }

    /// One evidence record and the outcome of each of its signed items.
    struct RecordLine {
        var seq: Int
        var caseID: String
        var step: Int
        var action: String
        var items: [(kind: String, outcome: JWSOutcome)]

        var failed: [(index: Int, kind: String, outcome: JWSOutcome)] {
            items.enumerated().compactMap { index, item in item.outcome.status == .failed ? (index, item.kind, item.outcome) : nil }
        }
    }

    /// What was checked, as given on the command line.
    var target: String
    /// `run directory` or `archive`.
    var targetKind: String
    var runId: String?
    var environment: String?
    var status: String?
    var files: [FileLine] = []
    var records: [RecordLine] = []
    /// Failures that are not about one file or one item (an unreadable manifest, corrupt evidence).
    var problems: [String] = []
    /// Where the evidence disagrees with itself or with run.json (``EvidenceConsistency``).
    var inconsistencies: [String] = []
    /// The reports run.json lists, rendered again from run.json and the evidence (``RederivedReports``).
    var reports: [RederivedReports.Comparison] = []
    /// What was not compared, and why; each note once.
    package var notes: [String] = []
    /// What was not checked that a reader must know even with --quiet: records not checked against the matrix.
    package var warnings: [String] = []
    /// The trust roots used, for the summary.
    var roots: String = ""
    /// What shows that the run has not ended (``RunManifest/notEndedEvidence``): it is running, or it stopped.
    var notEnded: String?

    var badFiles: [FileLine] { files.filter { $0.finding.status != .ok } }
    var failedRecords: [RecordLine] { records.filter { !$0.failed.isEmpty } }
    /// The reports whose rendering from run.json and the evidence is not what run.json lists or the file holds.
    var mismatchedReports: [RederivedReports.Comparison] { reports.filter { !$0.matches } }
    var signedItemCount: Int { records.reduce(0) { $0 + $1.items.count } }
    var uncheckedItemCount: Int { records.reduce(0) { $0 + $1.items.filter { $0.outcome.status == .notChecked }.count } }

    /// Whether everything checked out.
    package var passed: Bool {
        problems.isEmpty && inconsistencies.isEmpty && badFiles.isEmpty && failedRecords.isEmpty && mismatchedReports.isEmpty
    }

    mutating func note(_ text: String) {
        if !notes.contains(text) { notes.append(text) }
    }
}

/// A matrix file as read from disk: its bytes, its catalog's bytes, and the matrix when it loads.
package struct MatrixSources: Sendable {
    package var matrix: Matrix?
    package var bytes: [UInt8]
    /// The `.storekit` file's bytes; `nil` for an inline catalog or an unreadable file.
    package var catalogBytes: [UInt8]?

    package init(matrix: Matrix?, bytes: [UInt8], catalogBytes: [UInt8]?) {
        self.matrix = matrix
        self.bytes = bytes
        self.catalogBytes = catalogBytes
    }
}

/// Checks run directories and run archives: file digests, then the signed data in the evidence.
package struct RunVerification {
    /// `--root` values; empty picks `simulator` for a `local` run and `apple` otherwise.
    var rootNames: [String]
    var bundleId: String?
    var environment: String?
    var appAppleId: Int64?
    /// `--matrix`: the run's matrix file, when it is not at the path run.json recorded.
    var matrixPath: String? = nil
    /// `--without-matrix`: a run whose matrix cannot be used verifies on its files and signatures alone, with a
    /// warning. Otherwise it does not verify: where the run's matrix is, and so whether records are judged again,
    /// is for the caller to decide, never for the run directory.
    package var acceptsUnjudgedRecords = false
    /// Reads and loads a matrix file and its catalog; `nil` when the file cannot be read.
    var loadMatrix: (String) -> MatrixSources?
    /// What an archive may expand to.
    var limits: ArchiveLimits = .standard
    /// Stops the work (a signal): checked between records, and it ends `gzip` while an archive is unpacked.
    package var interruption: Interruption = .never

    package init(rootNames: [String], bundleId: String?, environment: String?, appAppleId: Int64?, matrixPath: String? = nil,
                 limits: ArchiveLimits = .standard, interruption: Interruption = .never, loadMatrix: @escaping (String) -> MatrixSources?) {
        self.rootNames = rootNames
        self.bundleId = bundleId
        self.environment = environment
        self.appAppleId = appAppleId
        self.matrixPath = matrixPath
        self.limits = limits
        self.interruption = interruption
        self.loadMatrix = loadMatrix
    }

    /// Checks a run directory against its `run.json`.
    ///
    /// - Throws: ``VerificationFailure`` 65 when the directory is not a run directory (no readable `run.json`).
    package func verifyDirectory(_ url: URL, display: String) throws(VerificationFailure) -> RunVerificationReport {
        var report = RunVerificationReport(target: display, targetKind: "run directory")
        let directory = RunDirectory(url: url)
        guard FileManager.default.fileExists(atPath: directory.manifestURL.path) else {
            throw VerificationFailure(.invalidInput, "\(display) is not a run directory: it has no \(RunDirectory.manifestFileName)")
        }
        let manifest: RunManifest
        do {
            manifest = try directory.readManifest()
        } catch {
            throw VerificationFailure(.invalidInput, "\(display) is not a run directory matrix can read: \(error)")
        }
        try check(directory, manifest: manifest, archivedBundleId: nil, into: &report, showAllFiles: true)
        return report
    }

    /// Unpacks an archive into a temporary directory and checks it against `archive.json`, then as a run
    /// directory against its `run.json`.
    ///
    /// - Throws: ``VerificationFailure`` 65 when the file is not a run archive or expands past ``limits``, 69
    ///   without `gzip`, 74 when it cannot be unpacked, `interrupted` on ``interruption``; the temporary
    ///   directory is removed in every case.
    package func verifyArchive(_ url: URL, display: String) throws(VerificationFailure) -> RunVerificationReport {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("matrix-verify-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let unpacked: RunArchive.Unpacked
        do {
            unpacked = try RunArchive.unpack(url, into: scratch, limits: limits, interruption: interruption)
        } catch {
            throw Self.failure(error, display: display)
        }
        return try verifyUnpacked(unpacked, display: display)
    }

    /// The verification failure for an archive that could not be unpacked.
    static func failure(_ error: any Error, display: String) -> VerificationFailure {
        guard let error = error as? RunArchiveError else { return VerificationFailure(.cannotUnpack, "cannot unpack \(display): \(error)") }
        switch error.code {
        case .notAnArchive, .unsafeEntry, .limitExceeded: return VerificationFailure(.invalidInput, error.message)
        case .tarUnavailable, .gzipUnavailable: return VerificationFailure(.unavailable, error.message)
        case .interrupted: return VerificationFailure(.interrupted, error.message)
        default: return VerificationFailure(.cannotUnpack, error.message)
        }
    }

    /// Checks an unpacked archive against its `archive.json`, then its run directory against its `run.json`.
    func verifyUnpacked(_ unpacked: RunArchive.Unpacked, display: String) throws(VerificationFailure) -> RunVerificationReport {
        var report = RunVerificationReport(target: display, targetKind: "archive")
        let archived = unpacked.manifest
        report.runId = archived.runId
        for finding in FileIntegrity.check(directory: unpacked.runDirectory, expected: archived.files) {
            report.files.append(.init(source: ArchiveManifest.fileName, finding: finding))
        }
        for stray in unpacked.strayEntries {
            report.files.append(.init(source: ArchiveManifest.fileName, finding: FileFinding(path: "../" + stray, status: .extra)))
        }
        let directory = RunDirectory(url: unpacked.runDirectory)
        let manifest: RunManifest
        do {
            manifest = try directory.readManifest()
        } catch {
            report.problems.append("the archived \(RunDirectory.manifestFileName) cannot be read: \(error)")
            return report
        }
        try check(directory, manifest: manifest, archivedBundleId: archived.bundleId, into: &report, showAllFiles: false,
                  unpackedInto: unpacked.runDirectory.deletingLastPathComponent())
        return report
    }

    /// The checks shared by directories and archives.
    /// - Parameter unpackedInto: for an archive, the folder it was unpacked into, where the run's matrix is never
    ///   looked for.
    private func check(_ directory: RunDirectory, manifest: RunManifest, archivedBundleId: String?,
                       into report: inout RunVerificationReport, showAllFiles: Bool, unpackedInto: URL? = nil) throws(VerificationFailure) {
        report.runId = manifest.runId
        report.environment = manifest.environment
        report.status = manifest.status.rawValue
        if manifest.status == .interrupted, !manifest.hasNotEnded {
            // Ended on a signal: what it recorded is whole and can verify, but it is not the whole matrix, which a
            // release gate must not take for a complete run.
            let during = manifest.unfinishedCases.map { $0.isEmpty ? "" : " during \($0.joined(separator: ", "))" } ?? ""
            report.warnings.append("the run was interrupted\(during): its evidence stops there and does not cover the whole "
                                   + "matrix; `matrix run --resume` on its run directory completes it")
        }
        if let evidence = manifest.notEndedEvidence {
            report.note("the run has not ended (\(evidence)): it is still running or its process died, and run.json lists the files as they were when it started")
        }
        var findings = FileIntegrity.check(directory: directory.url, expected: manifest.files, ignoring: [RunDirectory.manifestFileName])
        if manifest.hasNotEnded, let index = findings.firstIndex(where: { $0.path == RunDirectory.evidenceFileName && $0.status == .altered }) {
            // A run that did not end listed its evidence as it was at the start. Records appended since are what a
            // run does, but no digest covers them, and a record edited in place looks the same: the file is
            // unverifiable, never matching. (Deleting endedAt from a finished run's run.json lands here too.)
            // The records themselves are still checked below.
            findings[index].status = .unverifiable
        }
        if let evidence = manifest.notEndedEvidence {
            report.notEnded = evidence
            // What the run was writing when it stopped: its reports, and the temporary file each is written to first.
            let reports = Set(RunDirectory.reportFormats.map(\.fileName))
            for index in findings.indices where findings[index].status == .extra {
                let path = findings[index].path
                let written = path.hasPrefix(".") && path.hasSuffix(".tmp") ? String(path.dropFirst().dropLast(4)) : path
                if reports.contains(written) || (path != written && written == RunDirectory.manifestFileName) {
                    findings[index].status = .unfinished
                }
            }
        }
        for finding in findings where showAllFiles || finding.status != .ok {
            report.files.append(.init(source: RunDirectory.manifestFileName, finding: finding))
        }

        let roots = try TrustRoots.resolve(rootNames.isEmpty ? [EnvironmentKind(manifest.environment).isSignedBySimulator ? "simulator" : "apple"] : rootNames)
        report.roots = roots.summary
        let matrix = RunMatrix(manifest, given: matrixPath, runDirectory: directory.url, excluded: unpackedInto, load: loadMatrix)
        if case .refused(let why) = matrix { report.problems.append(why) }
        let bundle = resolveBundleId(manifest: manifest, archived: archivedBundleId, matrix: matrix)
        if let archivedBundleId, case .loaded(let loaded, _) = matrix, bundleId == nil, loaded.app.bundleId != archivedBundleId {
            report.problems.append("\(ArchiveManifest.fileName) records bundleId \(archivedBundleId), but the run's matrix names \(loaded.app.bundleId)")
        }
        if let note = bundle.note {
            // A bundle id that cannot be compared is a check not made: shown even with --quiet, as the matrix's is.
            if bundle.id == nil { report.warnings.append(note) } else { report.note(note) }
        }
        var runAppAppleId: Int64?
        if case .loaded(let matrix, _) = matrix { runAppAppleId = matrix.app.appAppleId }
        // The environment every signed item must name: --environment, else the one the run recorded that it signed
        // with. Only --environment can accept Xcode or LocalTesting data unsigned; the run's own files never can.
        // A local run signs with Sandbox unless --signed-environment said otherwise, and records it; one whose run.json
        // lost the field is held to Sandbox rather than to whatever its items say.
        let isLocal = EnvironmentKind(manifest.environment) == .local
        let recorded = manifest.signedEnvironment ?? (isLocal ? "Sandbox" : nil)
        let source = manifest.signedEnvironment == nil
            ? ", which local runs sign with (\(RunDirectory.manifestFileName) records no signedEnvironment)"
            : " as recorded in \(RunDirectory.manifestFileName) (signedEnvironment)"
        if let environment, let recorded, environment != recorded {
            report.problems.append("--environment \(environment) was given, but the run signed its data as \(recorded)\(source)")
        } else if environment == nil, let recorded {
            report.note("environment \(recorded)\(source): every signed item must name it and carry a signature that verifies")
        }
        let checker = SignedDataChecker(roots: roots, bundleId: bundle.id, environment: environment, appAppleId: appAppleId ?? runAppAppleId,
                                        recordedEnvironment: recorded)

        let defaultAppleRoot = rootNames.isEmpty && !EnvironmentKind(manifest.environment).isSignedBySimulator
        var simulatorSigned = 0
        var consistency: EvidenceConsistency
        switch matrix {
        case .loaded(let matrix, _):
            consistency = EvidenceConsistency(matrix: matrix, manifest: manifest)
        case .unusable(let why):
            consistency = EvidenceConsistency(matrix: nil, manifest: manifest)
            if acceptsUnjudgedRecords {
                report.warnings.append("records not checked against the matrix, verdicts not re-judged: \(why)")
            } else {
                report.problems.append("records cannot be checked against the matrix nor their verdicts judged again: \(why); pass --matrix "
                                       + "FILE, or --without-matrix to verify files and signatures only")
            }
        case .refused:
            consistency = EvidenceConsistency(matrix: nil, manifest: manifest)
        }
        let rederived = reports(for: manifest, into: &report)
        var evidenceRead = false
        do {
            let torn = try EvidenceReader.forEachRecord(in: directory.evidenceURL) { record in
                if interruption.isInterrupted { throw RunArchiveError.interrupted(directory.url.path) }
                consistency.add(record)
                rederived?.add(record)
                var line = RunVerificationReport.RecordLine(seq: record.seq, caseID: record.case, step: record.step,
                                                            action: record.action.action.rawValue, items: [])
                var claimed: [SignedClaims.Item] = []
                for item in record.observed?.signedData ?? [] {
                    let outcome: JWSOutcome
                    if let kind = VerifiedSignedData.Kind(rawValue: item.kind) {
                        outcome = checker.check(item.jws, kind: kind)
                    } else {
                        outcome = JWSOutcome(status: .failed, code: "INVALID_JWT_FORMAT",
                                             message: "the evidence names its kind \"\(item.kind)\"; known kinds are transaction, renewalInfo, notification and appTransaction")
                    }
                    // The bundle id's source is noted once above; the per-item "not compared" note adds nothing.
                    for note in outcome.notes where bundle.note == nil || !note.hasPrefix("bundleId not compared") {
                        report.note(note)
                    }
                    if let hint = outcome.hint { report.note("hint: " + hint) }
                    if defaultAppleRoot, outcome.status == .failed, SimulatorPKI.isSimulatorSigned(item.jws) { simulatorSigned += 1 }
                    line.items.append((item.kind, outcome))
                    claimed.append(.init(kind: item.kind, jws: item.jws, outcome: outcome))
                    // A notification carries its transaction and renewal info as JWS of their own, which a backend
                    // verifies again (Apple's verifyAndDecodeTransaction / verifyAndDecodeRenewalInfo).
                    for (nestedKind, jws) in Self.nestedSignedData(of: outcome) {
                        let nested = checker.check(jws, kind: nestedKind)
                        if let hint = nested.hint { report.note("hint: " + hint) }
                        if defaultAppleRoot, nested.status == .failed, SimulatorPKI.isSimulatorSigned(jws) { simulatorSigned += 1 }
                        line.items.append(("\(item.kind).\(nestedKind.rawValue)", nested))
                        claimed.append(.init(kind: "\(item.kind).\(nestedKind.rawValue)", jws: jws, outcome: nested))
                    }
                }
                consistency.add(record, signed: claimed)
                report.records.append(line)
            }
            if simulatorSigned > 0 {
                report.note("hint: \(simulatorSigned) signed item\(simulatorSigned == 1 ? "" : "s") of this \(manifest.environment) run carr\(simulatorSigned == 1 ? "ies" : "y") "
                            + "the StoreKit Matrix simulator's chain, which Apple's root does not trust (the environment served simulator data, "
                            + "as `matrix driver local` does); pass --root simulator to verify them against the simulator root")
            }
            consistency.finish(manifest: manifest)
            report.inconsistencies = consistency.problems
            if torn {
                report.note("\(RunDirectory.evidenceFileName) ends with a torn line (the run stopped while writing it); that line was left out")
            }
            evidenceRead = true
        } catch let error as RunArchiveError where error.code == .interrupted {
            throw VerificationFailure(.interrupted, "verification stopped on a signal; nothing was written")
        } catch {
            report.problems.append("\(RunDirectory.evidenceFileName) cannot be read: \(error)")
        }
        if evidenceRead, let rederived {
            report.reports = try rederived.compare(manifest: manifest, findings: findings, evidence: directory.evidenceURL)
        }
    }

    /// The reports run.json lists, to render again as the evidence is read; `nil`, with a warning, when the run was
    /// recorded by another version of `matrix`, whose reports may be worded differently.
    private func reports(for manifest: RunManifest, into report: inout RunVerificationReport) -> RederivedReports? {
        let formats = RederivedReports.formats(listedIn: manifest)
        guard !formats.isEmpty else { return nil }
        guard manifest.toolVersion == ToolVersion.current else {
            report.warnings.append("reports not compared with the evidence: the run was recorded by matrix \(manifest.toolVersion) and this is "
                                   + "matrix \(ToolVersion.current), whose reports may be worded differently; verify with matrix "
                                   + "\(manifest.toolVersion) to compare them")
            return nil
        }
        return RederivedReports(formats, unfinished: manifest.unfinished)
    }

    /// The JWS inside a notification's `data`: `signedTransactionInfo` and `signedRenewalInfo`, when the
    /// notification decoded. Apple: https://developer.apple.com/documentation/appstoreservernotifications/data
    static func nestedSignedData(of outcome: JWSOutcome) -> [(VerifiedSignedData.Kind, String)] {
        guard outcome.kind == .notification, outcome.status != .failed, let payload = outcome.payload,
              let parsed = try? StrictJSON.parse(payload), let data = parsed.objectValue?["data"]?.objectValue else { return [] }
        var nested: [(VerifiedSignedData.Kind, String)] = []
        if let jws = data["signedTransactionInfo"]?.stringValue { nested.append((.transaction, jws)) }
        if let jws = data["signedRenewalInfo"]?.stringValue { nested.append((.renewalInfo, jws)) }
        return nested
    }

    /// The bundle id to compare: `--bundle-id`, else the run's matrix when it is unchanged since the run, else
    /// the one recorded in the archive (which the caller compares with the matrix's when both exist); otherwise
    /// none, with a note.
    private func resolveBundleId(manifest: RunManifest, archived: String?, matrix: RunMatrix) -> (id: String?, note: String?) {
        if let bundleId { return (bundleId, nil) }
        switch matrix {
        case .loaded(let matrix, let path): return (matrix.app.bundleId, "bundleId \(matrix.app.bundleId) from \(path) (its SHA-256 matches run.json)")
        case .unusable(let why), .refused(let why):
            if let archived { return (archived, "bundleId \(archived) as recorded in \(ArchiveManifest.fileName)") }
            return (nil, "bundleId not compared: \(why); pass --bundle-id to check it")
        }
    }

    /// The run's matrix, when its file and its catalog are unchanged since the run, or why not.
    enum RunMatrix {
        /// The matrix, and the file it was read from (`--matrix`, or where the recorded path led).
        case loaded(Matrix, path: String)
        /// The run's matrix cannot be found or used: the run does not verify, unless ``acceptsUnjudgedRecords``
        /// (`--without-matrix`) checks the records without it, with a warning.
        case unusable(String)
        /// `--matrix` names a file that is not the run's matrix: the run does not verify against it.
        case refused(String)

        /// - Parameters:
        ///   - given: `--matrix`, used instead of the recorded path.
        ///   - runDirectory: where the run is, for ``RecordedMatrix/locate(_:runDirectory:excluded:)``.
        ///   - excluded: a folder the matrix is never looked for in (where an archive was unpacked).
        ///   - load: reads and loads a matrix file and its catalog.
        init(_ manifest: RunManifest, given: String? = nil, runDirectory: URL? = nil, excluded: URL? = nil, load: (String) -> MatrixSources?) {
            let found: String?
            if let given {
                found = FileManager.default.fileExists(atPath: given) ? given : nil
            } else {
                found = RecordedMatrix.locate(manifest, runDirectory: runDirectory, excluded: excluded)
            }
            guard let path = found, let loaded = load(path) else {
                self = .unusable("the run's matrix \(given ?? manifest.matrix.path) cannot be read from here")
                return
            }
            // The matrix you name is the one you mean to hold the run to: a run of another matrix does not verify.
            let differs: (String) -> RunMatrix = { what in
                given == nil ? .unusable("\(what) has changed since the run (its SHA-256 differs from run.json)")
                    : .refused("--matrix \(path) is not the matrix the run ran: \(what == path ? "its" : "its catalog's") SHA-256 differs from run.json's")
            }
            guard SHA256.hexHash(loaded.bytes) == manifest.matrix.sha256 else {
                self = differs(path)
                return
            }
            if manifest.matrix.catalogSHA256 != nil, loaded.catalogBytes == nil {
                // Missing, not changed: a copy of the matrix away from its catalog (a matrix names its catalog
                // relative to its own file).
                self = .unusable("the catalog of \(path) cannot be read from there; a matrix names its catalog relative to its own file, "
                                 + "so keep the matrix beside its catalog as it was for the run")
                return
            }
            if let recorded = manifest.matrix.catalogSHA256, loaded.catalogBytes.map(SHA256.hexHash) != recorded {
                self = differs("the catalog of \(path)")
                return
            }
            if manifest.matrix.catalogSHA256 == nil, loaded.catalogBytes != nil {
                // A run records its catalog's digest whenever the matrix names a catalog file.
                self = .unusable("\(RunDirectory.manifestFileName) records no SHA-256 for the catalog of \(path), so nothing shows it unchanged since the run")
                return
            }
            guard let matrix = loaded.matrix else {
                self = .unusable("\(path) does not load")
                return
            }
            self = .loaded(matrix, path: path)
        }
    }

    /// The bundle id a run's matrix names, when the matrix file is readable and unchanged since the run; for
    /// `matrix archive` to record.
    package static func matrixBundleId(of manifest: RunManifest, runDirectory: URL, load: @escaping (String) -> MatrixSources?) -> String? {
        RunVerification(rootNames: [], bundleId: nil, environment: nil, appAppleId: nil, loadMatrix: load)
            .resolveBundleId(manifest: manifest, archived: nil, matrix: RunMatrix(manifest, runDirectory: runDirectory, load: load)).id
    }
}
