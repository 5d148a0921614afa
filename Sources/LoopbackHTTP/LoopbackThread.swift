import Foundation

/// Work that blocks in `poll()` (an accept loop, one connection, one client exchange), on a thread of its own
/// rather than the cooperative pool, whose few threads a blocked call would hold.
enum LoopbackThread {
    static func start(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread { body() }
        thread.stackSize = 512 << 10
        thread.start()
    }
}
