import Foundation
import Testing
@testable import EvidenceStore
@testable import MatrixModel
@testable import TestSupport

/// The writer's durability policy: every record is in the file (the kernel's hands) when `append` returns;
/// `fsync` runs at most once per sync interval, and a record never waits longer than that for it.
@Suite("Evidence durability")
struct EvidenceDurabilityTests {
    private func newRun() throws -> (RunDirectory, URL) {
        let root = try Scratch.directory()
        return (try RunDirectory.create(root: root, environment: "local", build: "local", runID: "run"), root)
    }

    /// `count` records, cycling through the sample records with fresh sequence numbers.
    private func records(_ count: Int) -> [EvidenceRecord] {
        (0..<count).map { index in
            var record = SampleRun.records[index % SampleRun.records.count]
            record.seq = index + 1
            return record
        }
    }

    @Test("A sync interval of zero flushes every record to disk before append returns")
    func everyRecord() async throws {
        let (directory, root) = try newRun()
        defer { try? FileManager.default.removeItem(at: root) }
        let writer = try EvidenceWriter(directory: directory, syncInterval: .zero)
        for (index, record) in records(5).enumerated() {
            try await writer.append(record)
            #expect(await writer.syncCount == index + 1)
        }
    }

    @Test("Records appended in a burst are each in the file at once, with far fewer flushes than records")
    func burst() async throws {
        let (directory, root) = try newRun()
        defer { try? FileManager.default.removeItem(at: root) }
        let writer = try EvidenceWriter(directory: directory, syncInterval: .seconds(60))
        let burst = records(200)
        for (index, record) in burst.enumerated() {
            try await writer.append(record)
            // What a killed process leaves: the file as other processes read it now.
            if index % 50 == 49 {
                #expect(try EvidenceReader.read(directory.evidenceURL).records.count == index + 1)
            }
        }
        // The first record is flushed at once (nothing was flushed for a minute); the rest wait for the timer.
        #expect(await writer.syncCount == 1)
        try await writer.sync()
        #expect(await writer.syncCount == 2)
        await writer.close()
        #expect(try EvidenceReader.read(directory.evidenceURL).records == burst)
    }

    // However late a loaded machine runs the timer, it fires: the test waits for it (a timer that never fires
    // exceeds the time limit, generous as the test awaits among the whole suite) rather than for a fixed time.
    @Test("A record is flushed by the timer within the sync interval, with no further record to trigger it", .timeLimit(.minutes(5)))
    func timer() async throws {
        let (directory, root) = try newRun()
        defer { try? FileManager.default.removeItem(at: root) }
        let writer = try EvidenceWriter(directory: directory, syncInterval: .milliseconds(50))
        let two = records(2)
        try await writer.append(two[0])
        try await writer.append(two[1])
        #expect(await writer.syncCount == 1)
        while await writer.syncCount < 2 {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(await writer.syncCount == 2)
        // Nothing is left to flush: closing adds no flush.
        await writer.close()
        #expect(await writer.syncCount == 2)
    }

    @Test("Closing flushes what the timer has not flushed yet")
    func closeFlushes() async throws {
        let (directory, root) = try newRun()
        defer { try? FileManager.default.removeItem(at: root) }
        let writer = try EvidenceWriter(directory: directory, syncInterval: .seconds(60))
        for record in records(3) { try await writer.append(record) }
        #expect(await writer.syncCount == 1)
        await writer.close()
        #expect(await writer.syncCount == 2)
    }
}
