import Foundation
import MatrixCLI

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

exit(await MatrixCommand.main(CommandLine.arguments))
