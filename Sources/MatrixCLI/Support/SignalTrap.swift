import Dispatch
import Foundation

/// Runs work so that SIGINT (Ctrl-C) and SIGTERM cancel it instead of killing the process: the work stops at
/// the next step boundary and the caller writes what it has, then exits 130.
enum SignalTrap {
    enum Outcome<Value: Sendable>: Sendable {
        case finished(Value)
        case failed(any Error)
    }

    static func run<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value) async -> Outcome<Value> {
        let task = Task { try await body() }
        let signals = [SIGINT, SIGTERM]
        let sources = signals.map { number -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { task.cancel() }
            source.resume()
            return source
        }
        defer {
            for source in sources { source.cancel() }
            for number in signals { signal(number, SIG_DFL) }
        }
        do {
            return .finished(try await task.value)
        } catch {
            return .failed(error)
        }
    }
}
