import Foundation

/// How the tool starts a child it talks to (a driver, a backend under test): `posix_spawn` in a new process
/// group, with an empty signal mask and every signal at its default disposition. The runner ignores and blocks
/// SIGINT and SIGTERM while it runs; a child would otherwise inherit that and never see the SIGTERM that ends it,
/// and a signal to the child's group reaches everything it started.
public enum ChildSpawn {
    /// Calls `posix_spawn` with those attributes and returns its status (0, or an `errno` value).
    public static func spawn(_ pid: inout pid_t, _ path: String, _ actions: inout posix_spawn_file_actions_t,
                             _ argv: [UnsafeMutablePointer<CChar>?], _ environment: [UnsafeMutablePointer<CChar>?]) -> Int32 {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
        return posix_spawn(&pid, path, &actions, &attributes, argv, environment)
    }
}
