import Foundation
import ExecEnvironment
import MatrixCLI

// The watchdog of a server run (`matrix __contain …`): started by a run, not by a person.
if CommandLine.arguments.count > 1, CommandLine.arguments[1] == ContainmentWatchdog.command {
    exit(ContainmentWatchdog.main(Array(CommandLine.arguments.dropFirst(2))))
}
// A server run starts its watchdog from this executable.
ContainmentWatchdog.executable = Bundle.main.executableURL?.resolvingSymlinksInPath()

#if os(Linux)
// glibc raises its mmap threshold each time a large block is freed, after which large blocks (a long case's
// report section, its evidence batches) come from the heap and stay in the process when freed: a run of
// many long cases then grows by each case's peak. A fixed threshold (M_MMAP_THRESHOLD, -3 in <malloc.h>,
// which Swift does not import) keeps blocks of 8 MB or more in mappings of their own, returned to the system
// when freed. https://man7.org/linux/man-pages/man3/mallopt.3.html
typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
if let symbol = dlsym(nil, "mallopt") {
    _ = unsafeBitCast(symbol, to: Mallopt.self)(-3, 8 << 20)
}
#endif

// This process owns its process tree: a driver's descendant whose parent exits stays in it, to be ended and
// reaped with its driver.
ExecAdapter.adoptOrphanedDescendants()

// A reader that goes away (`matrix run … 2>&1 | head`) makes writes fail with EPIPE instead of killing the
// process: a run goes on recording its evidence, and a command whose output was cut short exits 74.
signal(SIGPIPE, SIG_IGN)

// A standard descriptor closed by the caller (`2>&-`) would be taken by the next file opened, evidence
// included, and progress written into it: each is held by /dev/null instead (open takes the lowest free
// descriptor), and output meant for a closed stdout counts as failed.
var closed: Set<Int32> = []
for descriptor: Int32 in 0...2 where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
    closed.insert(descriptor)
    _ = open("/dev/null", O_RDWR)
}

exit(await MatrixCommand.main(CommandLine.arguments, console: Console(outputClosed: closed.contains(1))))
