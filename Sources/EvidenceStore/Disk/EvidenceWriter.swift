import FileIO
import Foundation
import MatrixEngine
import MatrixModel
import Threading
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Appends evidence records to a run's `evidence.jsonl`, one JSON object per line.
///
/// Durability. Each line is encoded with sorted keys and unescaped slashes (``EvidenceLine``, the bytes
/// `JSONEncoder` gives); the lines of one append (a step's, or a batch of a case's steps when cases run in
/// parallel) are written with a single `write()` before the append returns, so once a step's record is appended it survives
/// a crash of the process, a `SIGKILL` or Ctrl-C: the kernel holds it and writes it out whatever happens to the
/// process. Forcing it to the disk itself (`fsync`) costs milliseconds, so the writer does that at most once per
/// ``syncInterval`` (100 ms by default), on a thread of its own that appends do not wait for: a flush starts
/// when a record is appended and the previous one started longer ago than that, otherwise by a timer at most
/// ``syncInterval`` later; ``sync()`` and ``close()`` flush at once and wait. A power loss or kernel crash
/// can therefore lose the records of the last ``syncInterval`` or so; what remains ends with complete lines, or
/// with a torn line that ``EvidenceReader`` drops and a resumed run cuts off. A `syncInterval` of zero flushes
/// every record before ``append(_:)`` returns.
///
/// If a write or flush fails, the partial line is cut off, the error is thrown (by that call, or for a flush
/// in the background by the next append or ``sync()``), and the writer refuses further records: the file always
/// ends with a complete line. The file is locked (`flock`) for the writer's process while it is open, so two
/// processes never append to one run.
///
/// The writer of a new run also composes the run's reports from the records it writes, so that
/// ``finish(_:status:endedAt:)`` need not read the evidence back.
public actor EvidenceWriter: EvidenceSink {
    /// The flush interval used when none is given: 100 ms.
    public static let defaultSyncInterval: Duration = .milliseconds(100)

    /// The `evidence.jsonl` file written.
    public nonisolated let url: URL
    /// `url`'s path, kept for the messages of every write and flush.
    private nonisolated let path: String
    /// The longest a written record waits before it is flushed to disk.
    public nonisolated let syncInterval: Duration
    private var fd: Int32
    /// Bytes of complete lines in the file.
    private var length: Int64
    private var failure: EvidenceWriteError?
    private let clock = ContinuousClock()
    /// When the last flush ended; records written since are not yet flushed when `unsynced` is true.
    private var lastSync: ContinuousClock.Instant
    private var unsynced = false
    private var timer: Task<Void, Never>?
    /// The reports of a new run, composed as its records are written; `nil` for a resumed run.
    private var live: LiveReports?
    /// The SHA-256 of a new run's evidence, computed as it is written; `nil` for a resumed run.
    private let digest: DigestStream?
    /// Records appended through this writer.
    public private(set) var appendedCount = 0
    /// `fsync` calls made (or started in the background) on the evidence so far.
    public private(set) var syncCount = 0
    /// Where periodic flushes run.
    private nonisolated let flusher = BackgroundFlush()
    /// What ``TestKill`` asks for, until it is done; `nil` unless a test asked.
    private var testKill = TestKill.requested

    /// Creates `evidence.jsonl` in a new run directory.
    ///
    /// - Parameter syncInterval: the longest a written record waits before it is flushed to disk; zero flushes
    ///   each record before ``append(_:)`` returns.
    /// - Throws: ``EvidenceWriteError`` with code `cannotWrite` when the file exists already or cannot be
    ///   created.
    public init(directory: RunDirectory, syncInterval: Duration = defaultSyncInterval) throws {
        let url = directory.evidenceURL
        // Appending never truncates; an existing file is taken only while it is empty (a new run's directory
        // appears with an empty evidence file, see ``RunDirectory/create(root:environment:build:runID:preparing:)``).
        let fd = open(url.path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw EvidenceWriteError.system(.cannotWrite, path: url.path, doing: "create", errno: errno)
        }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_size == 0 else {
            DurableFile.closeDescriptor(fd)
            throw EvidenceWriteError(.cannotWrite, path: url.path,
                                     message: "evidence file \(url.path) exists already and is never overwritten; "
                                         + "resume that run or start a new one")
        }
        DurableFile.syncDirectory(directory.url.path)
        do {
            try Self.lock(fd, path: url.path)
        } catch {
            DurableFile.closeDescriptor(fd)
            throw error
        }
        self.init(url: url, fd: fd, length: 0, syncInterval: syncInterval, live: LiveReports(), digest: DigestStream())
    }

    /// A writer over an open descriptor whose first `length` bytes are complete lines (tests use `/dev/full`).
    init(url: URL, fd: Int32, length: Int64, syncInterval: Duration = defaultSyncInterval, live: LiveReports? = nil,
         digest: DigestStream? = nil) {
        self.url = url
        self.path = url.path
        self.live = live
        self.digest = digest
        self.fd = fd
        self.length = length
        self.syncInterval = max(.zero, syncInterval)
        lastSync = clock.now - self.syncInterval
    }

    /// Opens an existing run's `evidence.jsonl` to append more records, after cutting off a torn last line.
    ///
    /// Only what a resumed run needs of the records is kept (``RecordedEvidence``), so resuming a large run
    /// does not hold its evidence in memory.
    /// - Returns: the writer, the steps already recorded, and whether a torn last line was cut off.
    /// - Throws: ``EvidenceReadError`` when the file cannot be read or is corrupt, or when the directory holds
    ///   a symbolic link, FIFO or device (`notRegularFile`); ``EvidenceWriteError`` with code `cannotWrite` or
    ///   `cannotSync` when it cannot be opened for appending or truncated.
    public static func resuming(directory: RunDirectory, syncInterval: Duration = defaultSyncInterval) throws
        -> (writer: EvidenceWriter, recorded: RecordedEvidence, droppedTornLine: Bool) {
        let url = directory.evidenceURL
        // A run directory to resume may come from anywhere (a CI artifact): it must hold only regular files, and
        // its evidence is never opened through a link that would append to a file outside it.
        try directory.checkOnlyRegularFiles()
        let fd: Int32
        do {
            fd = try InputFile.openRegular(url.path, flags: O_WRONLY | O_APPEND, followingLinks: false)
        } catch {
            throw error.isNotRegularFile ? EvidenceReadError.opening(url.path, error)
                                         : EvidenceWriteError(.cannotWrite, path: url.path, message: "cannot open \(error.about(url.path)) to append to it")
        }
        do {
            try lock(fd, path: url.path)
            var recorded = RecordedEvidence()
            let scan = try EvidenceReader.scan(url) { try recorded.add($0, from: url.path) }
            if ftruncate(fd, off_t(scan.validLength)) != 0 {
                throw EvidenceWriteError.system(.cannotWrite, path: url.path, doing: "cut the torn last line of", errno: errno)
            }
            try DurableFile.sync(fd, path: url.path)
            let writer = EvidenceWriter(url: url, fd: fd, length: scan.validLength, syncInterval: syncInterval)
            return (writer, recorded, scan.droppedTornLine)
        } catch {
            DurableFile.closeDescriptor(fd)
            throw error
        }
    }

    /// Takes the run's evidence for this process alone: a second `matrix run --resume` of the same run, or a
    /// resume while the run still goes, is refused instead of recording steps twice.
    static func lock(_ fd: Int32, path: String) throws {
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let number = errno
            if number == EWOULDBLOCK {
                throw EvidenceWriteError(.cannotWrite, path: path,
                                         message: "another matrix process is writing \(path); wait for it to end (or stop it) before resuming")
            }
            throw EvidenceWriteError.system(.cannotWrite, path: path, doing: "lock", errno: number)
        }
    }

    deinit {
        timer?.cancel()
        _ = flusher.wait()
        if fd >= 0 {
            if unsynced { _ = fsync(fd) }
            DurableFile.closeDescriptor(fd)
        }
    }

    /// Cases whose records, still to be appended, stop before their last step (``RunManifest/unfinishedCases``
    /// of a merge's slices): the reports composed as they are written label them so.
    public func markUnfinished(_ ids: Set<String>) {
        live?.markUnfinished(ids)
    }

    /// Appends `record` as one line; see the type's documentation for when it reaches the disk.
    ///
    /// - Throws: ``EvidenceWriteError``: `cannotWrite` or `cannotSync` when the disk refuses it or refused an
    ///   earlier flush (the writer then stops), `writerClosed` after ``close()`` or an earlier failure.
    public func append(_ record: EvidenceRecord) throws {
        try append(prepare([record]))
    }

    /// Encodes records as evidence lines (``EvidenceLine``), on the caller's thread. The records handed back
    /// keep everything but their signed data, which only the lines need: reports and progress do not show it,
    /// and a run's jobs then keep the large signed strings to themselves.
    public nonisolated func prepare(_ records: [EvidenceRecord]) -> PreparedEvidence {
        let lines = EvidenceLine.lines(records)
        var kept = records
        for index in kept.indices { kept[index].observed?.signedData = [] }
        return PreparedEvidence(records: kept, encoded: lines)
    }

    /// Appends prepared records in order, one line each, with a single `write()`; see the type's
    /// documentation for when they reach the disk. `prepared` comes from this writer's ``prepare(_:)`` (its
    /// lines are written as they are), or has no encoding and is encoded here.
    ///
    /// - Throws: as ``append(_:)``. If the disk takes only part of the lines, the complete ones are kept
    ///   (and counted), the partial one is cut off, and the writer stops.
    public func append(_ prepared: PreparedEvidence) throws {
        try checkOpen()
        let records = prepared.records
        guard !records.isEmpty else { return }
        let lines = prepared.encoded ?? EvidenceLine.lines(records)
        // Records whose lines are whole in the file when the write fails.
        var kept = 0
        var keptBytes = 0
        do {
            let written = try DurableFile.writeOnce(fd, lines[...], path: path)
            if written < lines.count {
                keptBytes = lines[..<written].lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
                kept = lines[..<keptBytes].count { $0 == 0x0A }
                _ = ftruncate(fd, off_t(length + Int64(keptBytes)))
                throw EvidenceWriteError(.cannotWrite, path: path,
                                         message: "cannot write to \(path): the disk took \(written) of \(lines.count) bytes; "
                                             + "free some disk space, then resume the run")
            }
        } catch let error as EvidenceWriteError {
            failure = error
            took(records.prefix(kept), lines[..<keptBytes])
            throw error
        }
        took(records[...], lines[...])
        if let testKill, appendedCount >= testKill.afterRecords {
            self.testKill = nil
            testKill.send()
        }
        if syncInterval == .zero {
            try sync()
        } else if clock.now - lastSync >= syncInterval {
            startFlush()
        } else if timer == nil {
            let deadline = lastSync + syncInterval
            timer = Task { [weak self] in
                try? await Task.sleep(until: deadline, clock: .continuous)
                await self?.timerFired()
            }
        }
    }

    /// Counts records now complete in the file, whose lines are `lines`, into the length, digest and reports.
    private func took(_ records: ArraySlice<EvidenceRecord>, _ lines: ArraySlice<UInt8>) {
        guard !records.isEmpty else { return }
        length += Int64(lines.count)
        appendedCount += records.count
        lines.withUnsafeBytes { digest?.update($0) }
        for record in records { live?.add(record) }
        unsynced = true
    }

    /// Flushes every record written so far to disk now.
    ///
    /// - Throws: ``EvidenceWriteError`` with code `cannotSync` when the flush fails (the writer then stops), or
    ///   the error that stopped it earlier.
    public func sync() throws {
        // Also before a close: no background flush may use the descriptor after it is closed.
        let flushFailure = flusher.wait()
        if failure == nil { failure = flushFailure }
        if let failure { throw failure }
        guard unsynced, fd >= 0 else { return }
        do {
            try DurableFile.sync(fd, path: path)
        } catch let error as EvidenceWriteError {
            failure = error
            throw error
        }
        syncCount += 1
        unsynced = false
        lastSync = clock.now
        timer?.cancel()
        timer = nil
    }

    /// Flushes what is written (best effort; use ``sync()`` first to see a failure) and closes the file.
    /// Later appends throw `writerClosed`.
    public func close() {
        if fd >= 0 {
            try? sync()
            DurableFile.closeDescriptor(fd)
        }
        fd = -1
        timer?.cancel()
        timer = nil
    }

    /// Ends the run: writes `junit.xml`, `summary.md`, `report.html` and the final `run.json`, as
    /// ``RunDirectory/finish(_:status:endedAt:)`` does, then closes the evidence (call ``sync()`` first to see a
    /// failure to flush it), whose lock keeps other processes from the run until then.
    ///
    /// A new run's writer has composed the reports while writing its records, so the evidence is not read back;
    /// a resumed run's writer, or one that stopped after a failure, reads it back.
    /// - Returns: the final manifest.
    /// - Throws: ``EvidenceReadError`` when the evidence cannot be read back; ``EvidenceWriteError`` when a
    ///   report or the manifest cannot be written.
    @discardableResult
    public func finish(_ manifest: RunManifest, status: RunStatus, endedAt: Date) throws -> RunManifest {
        // The evidence, and with it the lock on the run, stays open until run.json is final: a resume started
        // while the reports are written is refused, not let in to write them too.
        if fd >= 0 { try? sync() }
        defer { close() }
        let directory = RunDirectory(url: url.deletingLastPathComponent())
        let reports = live
        live = nil
        guard let reports, failure == nil, let composed = reports.complete(unfinished: manifest.unfinished) else {
            reports?.abandon()
            return try directory.finish(manifest, status: status, endedAt: endedAt)
        }
        defer { composed.close() }
        return try directory.finish(manifest, status: status, endedAt: endedAt, reports: composed, evidenceDigest: digest?.hexDigest())
    }

    private func timerFired() {
        timer = nil
        startFlush()
    }

    /// Flushes what is written so far in the background.
    private func startFlush() {
        guard unsynced, fd >= 0, failure == nil else { return }
        flusher.start(fd, path: path)
        syncCount += 1
        unsynced = false
        lastSync = clock.now
        timer?.cancel()
        timer = nil
    }

    private func checkOpen() throws {
        if failure == nil, let flushFailure = flusher.failure { failure = flushFailure }
        if let failure {
            throw EvidenceWriteError(.writerClosed, path: path,
                                     message: "evidence writing stopped after an earlier error: \(failure.message)")
        }
        guard fd >= 0 else {
            throw EvidenceWriteError(.writerClosed, path: path, message: "the evidence file \(path) is closed; no more records can be written")
        }
    }
}

/// Test-only hook: lets the crash-safety tests stop a run at a known record instead of sleeping and hoping a
/// signal lands mid-run. Only tests set its variables; they are read once, when the first writer is made, and
/// while they are unset an append costs one comparison more.
///
/// With `MATRIX_TEST_KILL_AFTER_RECORDS=N`, once an append has written the N-th record of this process, the
/// writer signals its own process as `kill` from another would. The records written are whole in the file by
/// then: the kernel holds them, and a SIGKILL cannot undo that. The signal is SIGKILL unless
/// `MATRIX_TEST_KILL_SIGNAL` gives another's number (SIGINT, SIGTERM or SIGHUP, to stop a run as a terminal
/// does); it is sent once.
struct TestKill: Sendable {
    var afterRecords: Int
    var signal: Int32

    static let requested: TestKill? = {
        let environment = ProcessInfo.processInfo.environment
        guard let count = environment["MATRIX_TEST_KILL_AFTER_RECORDS"].flatMap({ Int($0) }), count > 0 else { return nil }
        return TestKill(afterRecords: count, signal: environment["MATRIX_TEST_KILL_SIGNAL"].flatMap { Int32($0) } ?? SIGKILL)
    }()

    /// Sends the signal to this process, as `kill` from another would.
    func send() {
        _ = kill(getpid(), signal)
    }
}

/// What a resumed run needs of the evidence already written: each case's steps, their verdicts and reasons.
public struct RecordedEvidence: Sendable, Hashable {
    /// The recorded steps by case id, in step order.
    public private(set) var steps: [String: [RecordedStep]] = [:]
    /// How many records there are.
    public private(set) var count = 0
    /// The last record's `seq`, where numbering resumes; 0 when there is none.
    public private(set) var lastSeq = 0

    /// Nothing recorded.
    public init() {}

    /// Keeps what a resumed run needs of `record`, the next record of the file at `path`.
    ///
    /// - Throws: ``EvidenceReadError`` with code `corrupt` when the record's `seq` is not the next number or its
    ///   step is already recorded: evidence edited by hand or written by another tool, which a resumed run
    ///   must not extend.
    public mutating func add(_ record: EvidenceRecord, from path: String) throws {
        let line = count + 1
        guard record.seq == lastSeq + 1 else {
            throw EvidenceReadError(.corrupt, path: path, line: line,
                                    message: "\(path):\(line): seq \(record.seq) where \(lastSeq + 1) was expected; "
                                        + "the evidence was edited or written by another tool, and a run cannot be resumed on it")
        }
        if steps[record.case]?.contains(where: { $0.step == record.step }) == true {
            throw EvidenceReadError(.corrupt, path: path, line: line,
                                    message: "\(path):\(line): case \(record.case) step \(record.step) is recorded twice; "
                                        + "the evidence was edited or written by another tool, and a run cannot be resumed on it")
        }
        let step = RecordedStep(record)
        if let list = steps[record.case], let later = list.firstIndex(where: { $0.step > step.step }) {
            steps[record.case]?.insert(step, at: later)
        } else {
            steps[record.case, default: []].append(step)
        }
        count += 1
        lastSeq = record.seq
    }
}

/// Flushes a file to disk on a serial queue of its own, so that the writer's appends never wait for the disk,
/// and keeps the first failure.
private final class BackgroundFlush: Sendable {
    private let queue = DispatchQueue(label: "evidence-flush")
    /// The first flush that failed: set by flushes on `queue`, read by the writer.
    private let firstFailure = Locked<EvidenceWriteError?>(nil)

    /// The first flush that failed, if any has.
    var failure: EvidenceWriteError? {
        firstFailure.withLock { $0 }
    }

    /// Queues a flush of `fd`; the caller keeps `fd` open until ``wait()`` returns.
    func start(_ fd: Int32, path: String) {
        queue.async { [self] in
            do {
                try DurableFile.sync(fd, path: path)
            } catch {
                let failed = error as? EvidenceWriteError ?? EvidenceWriteError(.cannotSync, path: path, message: "\(error)")
                firstFailure.withLock { first in if first == nil { first = failed } }
            }
        }
    }

    /// Waits for the flushes queued so far; returns the first failure.
    func wait() -> EvidenceWriteError? {
        queue.sync {}
        return failure
    }
}
