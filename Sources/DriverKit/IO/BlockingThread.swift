import Foundation

/// Work that blocks in a system call for long (a `read()` on a pipe, a `waitpid()`), run on a thread of its
/// own. On Linux, dispatch's global pool has about one thread per core and adds one only after its threads
/// have been blocked for a while, so one blocked work item per driver, with several drivers, would delay every
/// other item queued there (cases with `--jobs N` would start about a second apart).
public enum BlockingThread {
    /// Starts `body` on a new thread named `name` (at most 15 bytes: Linux keeps no longer thread name); the
    /// thread ends when `body` returns.
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            // Named from inside: a name given before `start()` does not reach the system thread on Linux.
            Thread.current.name = name
            body()
        }
        // Readers and reapers need little stack.
        thread.stackSize = 256 << 10
        thread.start()
    }
}
