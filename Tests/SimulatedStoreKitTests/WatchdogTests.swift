@testable import SimulatedStoreKit
import Testing
import Threading

@Suite("Watchdog: limits on waits without a timer per wait")
struct WatchdogTests {
    /// The names of the watches that expired, in the order they did, and a way to wait for one.
    final class Expiries: Sendable {
        private let expired: AsyncStream<String>
        private let sink: AsyncStream<String>.Continuation
        private let seen = Locked<[String]>([])

        init() {
            (expired, sink) = AsyncStream.makeStream()
        }

        func expire(_ name: String) -> @Sendable () -> Void {
            { [self] in
                seen.withLock { $0.append(name) }
                sink.yield(name)
            }
        }

        var names: [String] { seen.withLock { $0 } }

        /// Waits until `name` expires, for at most `limit` (generous: only a watchdog that does not fire misses it).
        func waitFor(_ name: String, atMost limit: Duration = .seconds(30)) async -> Bool {
            await withTaskGroup(of: Bool.self) { group in
                group.addTask {
                    for await expired in self.expired where expired == name { return true }
                    return false
                }
                group.addTask {
                    try? await Task.sleep(for: limit)
                    return false
                }
                let first = await group.next() ?? false
                group.cancelAll()
                return first
            }
        }
    }

    @Test("A watch that is not ended expires once its limit passes, and ending it then says so")
    func expires() async {
        let watchdog = Watchdog()
        let expiries = Expiries()
        let watch = watchdog.watch(for: .milliseconds(20), expire: expiries.expire("short"))
        #expect(await expiries.waitFor("short"))
        #expect(!watchdog.end(watch), "end(_:) of an expired watch answered that it ended in time")
        #expect(expiries.names == ["short"])
    }

    @Test("A short limit watched after a long one expires at its own deadline, not the long one's")
    func shorterLimitAfterLongerOne() async {
        let watchdog = Watchdog()
        let expiries = Expiries()
        let long = watchdog.watch(for: .seconds(600), expire: expiries.expire("long"))
        let short = watchdog.watch(for: .milliseconds(20), expire: expiries.expire("short"))
        #expect(await expiries.waitFor("short"), "the short watch waited for the long one's sleeper")
        #expect(watchdog.end(long), "the long watch expired with the short one")
        #expect(!watchdog.end(short))
        #expect(expiries.names == ["short"])
    }

    @Test("A watch ended before its deadline never expires, and the watchdog goes on to later watches")
    func endedWatchDoesNotExpire() async {
        let watchdog = Watchdog()
        let expiries = Expiries()
        let ended = watchdog.watch(for: .milliseconds(10), expire: expiries.expire("ended"))
        #expect(watchdog.end(ended))
        // Its deadline comes before this one's: had it still been watched, it would have expired first.
        let later = watchdog.watch(for: .milliseconds(40), expire: expiries.expire("later"))
        #expect(await expiries.waitFor("later"))
        #expect(!watchdog.end(later))
        #expect(expiries.names == ["later"])
        // A watch after the sleeper ended (no watch was left) starts another.
        let again = watchdog.watch(for: .milliseconds(10), expire: expiries.expire("again"))
        #expect(await expiries.waitFor("again"))
        #expect(!watchdog.end(again))
        #expect(expiries.names == ["later", "again"])
    }
}
