import Dispatch
import Foundation
import Threading

extension Array where Element: Sendable {
    /// `map` over every core: the elements are split into a few chunks per core, each mapped on one thread, and
    /// the results come back in order. Below `minimumCount` elements it runs on the caller's thread alone.
    func concurrentMap<Result: Sendable>(minimumCount: Int = 64, _ transform: @Sendable (Element) -> Result) -> [Result] {
        let count = self.count
        let cores = ProcessInfo.processInfo.activeProcessorCount
        guard count >= minimumCount, cores > 1 else { return map(transform) }
        let chunks = Swift.min(count, cores * 4)
        let mapped = ChunkResults<Result>(count: chunks)
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            let results = self[chunk * count / chunks ..< (chunk + 1) * count / chunks].map(transform)
            mapped.store(results, at: chunk)
        }
        return mapped.joined()
    }
}

/// The results of each chunk of a ``Swift/Array/concurrentMap(minimumCount:_:)``, stored as each chunk ends.
private final class ChunkResults<Result: Sendable>: Sendable {
    private let chunks: Locked<[[Result]]>

    init(count: Int) {
        chunks = Locked(Array(repeating: [], count: count))
    }

    func store(_ results: [Result], at chunk: Int) {
        chunks.withLock { $0[chunk] = results }
    }

    func joined() -> [Result] {
        chunks.withLock { Array($0.joined()) }
    }
}
