import Foundation
import DriverKit

/// Keeps track of everything a driver started, so that ending the driver ends all of it: also a helper that left
/// the driver's process group with `setsid()` (a daemon, a simulator host), which a signal to the group misses.
///
/// Each driver's environment carries a token of its own (``tokenVariable``), inherited by whatever it starts; a
/// driver's processes are its descendants still in its tree, and every process whose environment holds its token
/// (Linux; on other systems only the process group is signalled).
///
/// A process that owns its whole process tree — the `matrix` executable — also becomes a child subreaper
/// (``ExecAdapter/adoptOrphanedDescendants()``): a descendant whose parent exits is re-parented to it instead
/// of to init, so it stays in the tree even with its environment cleared, and is reaped here once ended. A
/// library never does this by itself: a host process (a test runner) would then adopt every orphan of every
/// child it starts, and whatever waits on its children could wait on orphans it cannot reap.
package enum DriverContainment {
    /// The environment variable that marks a driver's processes; its value is unique to one driver process.
    package static let tokenVariable = "STOREKIT_MATRIX_DRIVER_TOKEN"

    /// A new token for a driver.
    package static func makeToken() -> String {
        (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    /// Makes this process a child subreaper, once (Linux); see the type's documentation.
    ///
    /// - Returns: whether this process is one.
    @discardableResult
    static func becomeSubreaper() -> Bool {
        subreaper
    }

    #if os(Linux)
    private static let subreaper: Bool = {
        let PR_SET_CHILD_SUBREAPER: Int32 = 36
        return prctl?(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    }()

    /// Whether this process is a child subreaper (`PR_GET_CHILD_SUBREAPER`), or nil where that cannot be read.
    static var isSubreaper: Bool? {
        var value: Int32 = 0
        let PR_GET_CHILD_SUBREAPER: Int32 = 37
        guard let prctl, withUnsafeMutablePointer(to: &value, { prctl(PR_GET_CHILD_SUBREAPER, UInt(bitPattern: $0), 0, 0, 0) }) == 0
        else { return nil }
        return value != 0
    }

    /// `prctl(2)`, looked up: it is variadic, which Swift does not import; its arguments (integers and a pointer)
    /// are passed alike either way.
    private static let prctl: (@convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32)? = {
        typealias Prctl = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32
        return dlsym(nil, "prctl").map { unsafeBitCast($0, to: Prctl.self) }
    }()
    #else
    /// Darwin has no child subreaper: an orphan goes to launchd, and only the process group is signalled.
    private static let subreaper = false

    /// Darwin cannot say.
    static var isSubreaper: Bool? { nil }
    #endif

    /// One process as /proc shows it.
    package struct ProcessEntry: Hashable {
        package var pid: Int32
        package var parent: Int32
        package var zombie: Bool
    }

    /// Every process of this system that /proc lists (Linux); empty elsewhere.
    package static func processes() -> [ProcessEntry] {
        #if os(Linux)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return names.compactMap { name -> ProcessEntry? in
            guard let pid = Int32(name), let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            // "pid (comm) state ppid …": the command may hold spaces and parentheses, so fields count from the last ")".
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 1, let parent = Int32(fields[1]) else { return nil }
            return ProcessEntry(pid: pid, parent: parent, zombie: fields[0] == "Z")
        }
        #else
        return []
        #endif
    }

    /// Whether the environment `pid` started with holds `token` (Linux; never elsewhere).
    static func carries(_ pid: Int32, token: String) -> Bool {
        #if os(Linux)
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return false }
        let marker = Array("\(tokenVariable)=\(token)".utf8)
        return data.split(separator: 0).contains { $0.elementsEqual(marker) }
        #else
        return false
        #endif
    }

    /// The processes of the driver `driver` (not the driver itself): its descendants and every process with its
    /// token.
    package static func processes(of driver: Int32, token: String) -> [ProcessEntry] {
        let all = processes()
        let me = getpid()
        var children: [Int32: [ProcessEntry]] = [:]
        for entry in all { children[entry.parent, default: []].append(entry) }
        var found: [Int32: ProcessEntry] = [:]
        var queue = [driver]
        while let next = queue.popLast() {
            for child in children[next] ?? [] where found[child.pid] == nil && child.pid != me {
                found[child.pid] = child
                queue.append(child.pid)
            }
        }
        for entry in all where found[entry.pid] == nil && entry.pid != driver && entry.pid != me && carries(entry.pid, token: token) {
            found[entry.pid] = entry
            for child in children[entry.pid] ?? [] where found[child.pid] == nil { queue.append(child.pid) }
        }
        // Descendants of processes found by their token.
        while let next = queue.popLast() {
            for child in children[next] ?? [] where found[child.pid] == nil && child.pid != me {
                found[child.pid] = child
                queue.append(child.pid)
            }
        }
        return Array(found.values)
    }

    /// Sends SIGKILL to every process of the driver, and reaps those re-parented to this process.
    ///
    /// - Returns: the process IDs signalled.
    @discardableResult
    package static func end(driver: Int32, token: String) -> [Int32] {
        let found = processes(of: driver, token: token)
        for entry in found where !entry.zombie { _ = kill(entry.pid, SIGKILL) }
        let me = getpid()
        let adopted = found.filter { $0.parent == me }.map(\.pid)
        if !adopted.isEmpty {
            // Each was sent SIGKILL (or has ended), so each wait returns soon; they are this process's children
            // only through the subreaper, and nothing else waits for them.
            BlockingThread.start(name: "matrix-reaper") {
                for pid in adopted {
                    var status: Int32 = 0
                    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                }
            }
        }
        return found.map(\.pid)
    }
}
