import Dispatch
import Foundation

extension Array {
    /// `map` over every core: the elements are split into a few chunks per core, each mapped on one thread, and
    /// the results come back in order.
    ///
    /// `transform` is called from several threads at once: it may read state it shares with other calls, never
    /// write it. Below `minimumCount` elements it runs on the caller's thread alone.
    func concurrentMap<Result>(minimumCount: Int = 64, _ transform: (Element) -> Result) -> [Result] {
        let count = self.count
        let cores = ProcessInfo.processInfo.activeProcessorCount
        guard count >= minimumCount, cores > 1 else { return map(transform) }
        let chunks = Swift.min(count, cores * 4)
        return withoutActuallyEscaping(transform) { transform in
            [Result](unsafeUninitializedCapacity: count) { buffer, initialized in
                let shared = UncheckedSendable((elements: self, transform: transform, results: buffer.baseAddress.unsafelyUnwrapped))
                DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
                    let (elements, transform, results) = shared.value
                    for index in chunk * count / chunks ..< (chunk + 1) * count / chunks {
                        (results + index).initialize(to: transform(elements[index]))
                    }
                }
                initialized = count
            }
        }
    }
}

/// Hands a value to other threads on the promise, made where it is used, that they only read what it shares.
private struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
