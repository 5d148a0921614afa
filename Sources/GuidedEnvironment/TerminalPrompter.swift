import Foundation
import Threading

/// Guides a tester at a terminal: instructions on stderr, answers typed on stdin, waits as a countdown.
public struct TerminalPrompter: Prompter {
    let write: @Sendable (String) -> Void
    let readLine: @Sendable () -> String?

    /// - Parameters:
    ///   - write: where prompts go (stderr).
    ///   - readLine: reads one line of the tester's input, `nil` at end of input.
    public init(write: @escaping @Sendable (String) -> Void, readLine: @escaping @Sendable () -> String? = { Swift.readLine() }) {
        self.write = write
        self.readLine = readLine
    }

    public func show(_ text: String) async {
        write("\n" + text + "\n")
    }

    public func answer(_ request: AnswerRequest) async throws -> Answer {
        var answer = Answer(case: request.caseID, step: request.step)
        let tierList = request.tiers.isEmpty ? "(the matrix defines no tiers)" : request.tiers.joined(separator: ", ")
        while answer.access == nil {
            write("Which tiers does the app grant now? \(tierList) — comma-separated, \"none\", or \"skip: reason\": ")
            guard let line = try await nextLine()?.trimmingCharacters(in: .whitespaces) else { throw endOfInput(request) }
            if line.lowercased().hasPrefix("skip") {
                let reason = line.dropFirst(4).trimmingCharacters(in: CharacterSet(charactersIn: ": "))
                return Answer(case: request.caseID, step: request.step, skip: reason.isEmpty ? "skipped by the tester" : reason)
            }
            // An empty line is asked again: an Enter pressed by mistake must not become evidence of no access.
            guard !line.isEmpty else {
                write("type \"none\" if the app grants no tier\n")
                continue
            }
            let chosen = line.lowercased() == "none"
                ? [] : line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            let unknown = chosen.filter { !request.tiers.contains($0) }
            if unknown.isEmpty {
                answer.access = chosen
            } else {
                write("unknown tier \(unknown.joined(separator: ", ")); choose from \(tierList)\n")
            }
        }
        if let results = request.results {
            while answer.result == nil {
                write("What did the app report? \(results.joined(separator: ", ")): ")
                guard let line = try await nextLine()?.trimmingCharacters(in: .whitespaces) else { throw endOfInput(request) }
                if results.contains(line) { answer.result = line } else { write("choose one of \(results.joined(separator: ", "))\n") }
            }
        }
        if request.asksTransactionId {
            write("Transaction id the app shows (Enter if it shows none): ")
            if let line = try await nextLine()?.trimmingCharacters(in: .whitespaces), !line.isEmpty { answer.transactionId = line }
        }
        return answer
    }

    /// The tester's next line, read off the cooperative pool; Ctrl-C (task cancellation) gives up waiting at once.
    func nextLine() async throws -> String? {
        let box = LineBox()
        let readLine = self.readLine
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String?, any Error>) in
                box.install(continuation)
                DispatchQueue.global().async { box.resume(.success(readLine())) }
            }
        } onCancel: {
            box.resume(.failure(CancellationError()))
        }
    }

    /// The input ended: the tester is gone, so the run stops here as interrupted, to be resumed.
    func endOfInput(_ request: AnswerRequest) -> CancellationError {
        write("\nthe input ended before case \"\(request.caseID)\" step #\(request.step) was answered; the run stops here "
              + "(resume it with `matrix run --resume`)\n")
        return CancellationError()
    }

    public func wait(milliseconds: Int64, label: String) async throws {
        guard milliseconds > 0 else { return }
        let total = Double(milliseconds) / 1000
        let start = Date()
        while true {
            let elapsed = Date().timeIntervalSince(start)
            if elapsed >= total { break }
            let remaining = Int((total - elapsed).rounded(.up))
            let done = Int(20 * elapsed / total)
            let bar = String(repeating: "#", count: done) + String(repeating: ".", count: 20 - done)
            write(String(format: "\r  waiting %@: [%@] %d:%02d:%02d left ", label, bar, remaining / 3600, remaining / 60 % 60, remaining % 60))
            try await Task.sleep(nanoseconds: UInt64(min(1.0, total - elapsed) * 1_000_000_000))
        }
        write("\r  waited \(label)" + String(repeating: " ", count: 40) + "\n")
    }
}

/// Resumes a continuation once, from whichever comes first: the line, or a cancellation.
private final class LineBox: Sendable {
    private struct State {
        var continuation: CheckedContinuation<String?, any Error>?
        var early: Result<String?, any Error>?
    }

    private let state = Locked(State())

    func install(_ continuation: CheckedContinuation<String?, any Error>) {
        let pending = state.withLock { state -> Result<String?, any Error>? in
            if let early = state.early { return early }
            state.continuation = continuation
            return nil
        }
        if let pending { continuation.resume(with: pending) }
    }

    func resume(_ result: Result<String?, any Error>) {
        let waiting = state.withLock { state -> CheckedContinuation<String?, any Error>? in
            defer { state.continuation = nil }
            if state.continuation == nil, state.early == nil { state.early = result }
            return state.continuation
        }
        waiting?.resume(with: result)
    }
}
