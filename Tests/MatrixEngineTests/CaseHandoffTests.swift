import Testing
@testable import MatrixEngine
@testable import TestSupport

/// The hand-over between the workers of a run with several jobs and the task writing the evidence in matrix order.
@Suite("Case hand-over between jobs and the writer")
struct CaseHandoffTests {
    /// One record whose encoding takes `bytes` bytes.
    func batch(_ caseID: String, bytes: Int) -> PreparedEvidence {
        PreparedEvidence(records: [CompareFixture.record(caseID, 0, .pass)], encoded: Array(repeating: 0x41, count: bytes))
    }

    /// Yields until `handoff` has `count` workers waiting to deliver; fails the test if they never come.
    func waitForDeliveries(_ handoff: CaseHandoff, _ count: Int) async throws {
        for _ in 0..<100_000 where handoff.waitingDeliveryCount < count { await Task.yield() }
        try #require(handoff.waitingDeliveryCount == count)
    }

    @Test("records held are bounded: past the limit a later case's worker waits for its case's turn, and the case being written waits only for the writer to take its batches")
    func heldRecordsAreBounded() async throws {
        let handoff = CaseHandoff(count: 2, window: 4, heldBytes: 100)
        #expect(await handoff.take() == 0)
        #expect(await handoff.take() == 1)
        let delivered = Flag()
        let worker = Task {
            await handoff.deliver(1, batch("second", bytes: 150), ending: .success(true))
            await delivered.set()
        }
        try await waitForDeliveries(handoff, 1)
        #expect(await !delivered.isSet)
        // The case being written delivers past the limit and waits for the writer, not for the later case.
        let head = Task { await handoff.deliver(0, batch("first", bytes: 150), ending: nil) }
        try await waitForDeliveries(handoff, 2)
        let first = try #require(await handoff.nextToWrite())
        #expect(first.batches.map { $0.records.map(\.case) } == [["first"]])
        await head.value
        // The case ends; the writer writes it.
        await handoff.deliver(0, PreparedEvidence(records: []), ending: .success(true))
        let end = try #require(await handoff.nextToWrite())
        #expect(end.batches.isEmpty && end.ending != nil)
        #expect(await !delivered.isSet, "the second case waits until the first is written")
        handoff.wrote()
        // Now being written, and still past the limit, it waits for the writer to take its batch.
        let second = try #require(await handoff.nextToWrite())
        #expect(second.batches.map { $0.records.map(\.case) } == [["second"]])
        await worker.value
        #expect(await delivered.isSet)
        handoff.wrote()
        #expect(await handoff.nextToWrite() == nil)
    }

    @Test("under the limit, workers deliver for later cases without waiting")
    func underTheLimit() async throws {
        let handoff = CaseHandoff(count: 3, window: 4, heldBytes: 2_000)
        for position in 0..<3 { #expect(await handoff.take() == position) }
        await handoff.deliver(2, batch("third", bytes: 400), ending: .success(true))
        await handoff.deliver(1, batch("second", bytes: 400), ending: .success(true))
        #expect(handoff.waitingDeliveryCount == 0)
        await handoff.deliver(0, batch("first", bytes: 400), ending: .success(true))
        for expected in ["first", "second", "third"] {
            let next = try #require(await handoff.nextToWrite())
            #expect(next.batches.first?.records.first?.case == expected)
            handoff.wrote()
        }
    }

    @Test("stopping wakes a worker waiting for its case's turn")
    func stopWakesWaitingDelivery() async throws {
        let handoff = CaseHandoff(count: 2, window: 4, heldBytes: 10)
        _ = await handoff.take()
        _ = await handoff.take()
        let worker = Task { await handoff.deliver(1, batch("second", bytes: 50), ending: .success(true)) }
        try await waitForDeliveries(handoff, 1)
        handoff.stop()
        await worker.value
        #expect(handoff.waitingDeliveryCount == 0)
        #expect(await handoff.take() == nil)
    }
}

/// A flag set from another task.
private actor Flag {
    private(set) var isSet = false
    func set() { isSet = true }
}
