import Foundation

/// How the tool starts a child it talks to (a driver, a backend under test, the watchdog that outlives a crash):
/// `posix_spawn` in a new process group, with an empty signal mask, every signal at its default disposition, and
/// no descriptor but those its file actions name. The runner ignores and blocks SIGINT and SIGTERM while it runs;
/// a child would otherwise inherit that and never see the SIGTERM that ends it, and a signal to the child's group
/// reaches everything it started. A descriptor it inherited by accident (another child's pipe, the runner's
/// listening socket) would keep that pipe from ending or that port from closing.
package enum ChildSpawn {
    /// `posix_spawn_file_actions_t` as each platform spells it: an opaque pointer on Darwin (made with `nil`),
    /// a structure on Glibc.
    #if canImport(Darwin)
    package typealias FileActions = posix_spawn_file_actions_t?
    #else
    package typealias FileActions = posix_spawn_file_actions_t
    #endif

    /// Empty file actions, initialised; destroy them with `posix_spawn_file_actions_destroy`.
    package static func makeFileActions() -> FileActions {
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t? = nil
        #else
        var actions = posix_spawn_file_actions_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        return actions
    }

    /// Adds actions that close every descriptor from `first` up in the child, so that it holds nothing but what
    /// the earlier actions gave it. glibc 2.34+ does it in one action (`posix_spawn_file_actions_addclosefrom_np`,
    /// looked up at run time); otherwise each descriptor open now is closed. On Darwin ``spawn(_:_:_:_:_:)`` sets
    /// `POSIX_SPAWN_CLOEXEC_DEFAULT` instead, which closes every descriptor no file action names.
    ///
    /// Call it after the actions that place the child's descriptors (`adddup2` to 0, 1, 2, …, below `first`).
    package static func closeDescriptors(from first: Int32, _ actions: inout FileActions) {
        #if canImport(Darwin)
        _ = first
        #else
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32
        if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, first)
            return
        }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for fd in open.compactMap(Int32.init) where fd >= first {
            posix_spawn_file_actions_addclose(&actions, fd)
        }
        #endif
    }

    /// Calls `posix_spawn` with those attributes and returns its status (0, or an `errno` value).
    package static func spawn(_ pid: inout pid_t, _ path: String, _ actions: inout FileActions,
                              _ argv: [UnsafeMutablePointer<CChar>?], _ environment: [UnsafeMutablePointer<CChar>?]) -> Int32 {
        #if canImport(Darwin)
        var attributes: posix_spawnattr_t? = nil
        #else
        var attributes = posix_spawnattr_t()
        #endif
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setpgroup(&attributes, 0)
        var flags = Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP)
        #if canImport(Darwin)
        // Every descriptor no file action names is closed in the child (Apple's extension).
        flags |= Int32(POSIX_SPAWN_CLOEXEC_DEFAULT)
        #endif
        posix_spawnattr_setflags(&attributes, Int16(flags))
        return posix_spawn(&pid, path, &actions, &attributes, argv, environment)
    }
}
