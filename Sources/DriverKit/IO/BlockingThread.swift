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
            // Named from inside, and through pthreads: a name given to `Thread` before `start()` does not reach
            // the system thread on Linux, and `Thread.current.name` does not always either (a new thread starts
            // with its creator's name, a dispatch worker's).
            setName(name)
            body()
        }
        // Readers and reapers need little stack.
        thread.stackSize = 256 << 10
        thread.start()
    }

    /// The calling thread's name as the system knows it (what `ps -L`, `top -H` and debuggers show).
    public static var currentName: String {
        #if canImport(Darwin)
        var name = [CChar](repeating: 0, count: 64)
        guard pthread_getname_np(pthread_self(), &name, name.count) == 0 else { return "" }
        return String(cString: name)
        #else
        // Glibc's pthread_getname_np is not visible to Swift; it reads this file too.
        let text = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
        return text.hasSuffix("\n") ? String(text.dropLast()) : text
        #endif
    }

    private static func setName(_ name: String) {
        #if canImport(Darwin)
        _ = pthread_setname_np(name)
        #else
        // Glibc's pthread_setname_np is not visible to Swift; it writes this file too (Linux 3.17 and later).
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = Array(name.utf8.prefix(15)).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        #endif
    }
}
