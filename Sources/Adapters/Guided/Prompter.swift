import Foundation
import MatrixCore

/// What a guided run asks the tester after a step.
public struct AnswerRequest: Sendable, Hashable {
    public var caseID: String
    /// 0-based step index in the case.
    public var step: Int
    public var action: Action
    /// The tiers the tester chooses the app's access from.
    public var tiers: [String]
    /// The results the tester chooses from, when the step has a result (purchase, restore).
    public var results: [String]?
    /// Whether to ask for the transaction id the app shows (optional for the tester).
    public var asksTransactionId: Bool
}

/// What the tester observed after a step, typed at the terminal or scripted in an answers file.
///
/// In an answers file (`--answers FILE`), each line is one answer:
/// `{"case": "refund/pro", "step": 2, "access": [], "result": "success", "transactionId": "2000000…", "skip": "reason"}`;
/// `access` is required unless `skip` is given.
public struct Answer: Sendable, Hashable, Codable {
    public var `case`: String?
    public var step: Int?
    /// The tiers the app grants now.
    public var access: [String]?
    /// The purchase or restore result the app showed.
    public var result: String?
    /// The transaction id the app showed, if it shows one.
    public var transactionId: String?
    /// The tester could not perform the step; the reason is recorded and the step is `skipped`.
    public var skip: String?
    /// A remark for the evidence.
    public var note: String?

    public init(case caseID: String? = nil, step: Int? = nil, access: [String]? = nil, result: String? = nil,
                transactionId: String? = nil, skip: String? = nil, note: String? = nil) {
        self.case = caseID
        self.step = step
        self.access = access
        self.result = result
        self.transactionId = transactionId
        self.skip = skip
        self.note = note
    }
}

/// How a guided run talks to the tester: instructions out, observations in, waits shown as a countdown.
public protocol Prompter: Sendable {
    /// Shows what to do next.
    func show(_ text: String) async
    /// Asks what the tester observed.
    /// - Throws: ``AdapterError`` when no answer can be had (end of input, a scripted answer missing).
    func answer(_ request: AnswerRequest) async throws -> Answer
    /// Waits `milliseconds` of real time (or only records it, in a replay), showing a countdown.
    func wait(milliseconds: Int64, label: String) async throws
}

/// Answers from a JSON Lines file, for scripted and replayed guided runs. Waits are not slept.
///
/// When the file has no answer for a step, the tester has not got that far: the run stops there as
/// interrupted, to be resumed (`matrix run --resume`) once the answers are added.
public struct ScriptedPrompter: Prompter {
    let answers: [String: Answer]
    let log: @Sendable (String) -> Void
    let stopped: @Sendable (String) -> Void

    /// Reads the answers file.
    /// - Parameters:
    ///   - log: receives instructions and waits (they are not shown to anyone).
    ///   - stopped: receives the reason the run stops early.
    /// - Throws: ``AdapterError`` naming the line of a malformed or incomplete answer.
    public init(jsonLines data: Data, path: String, log: @escaping @Sendable (String) -> Void = { _ in },
                stopped: @escaping @Sendable (String) -> Void = { _ in }) throws {
        var answers: [String: Answer] = [:]
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        for (number, line) in lines.enumerated() where !line.trimmingCharacters(in: .whitespaces).isEmpty {
            guard let answer = try? JSONDecoder().decode(Answer.self, from: Data(line.utf8)) else {
                throw AdapterError("\(path):\(number + 1): not an answer: expected a JSON object such as "
                                   + #"{"case": "refund/pro", "step": 2, "access": []}"#)
            }
            guard let caseID = answer.case, let step = answer.step else {
                throw AdapterError("\(path):\(number + 1): an answer needs \"case\" and \"step\"")
            }
            if answer.access == nil && answer.skip == nil {
                throw AdapterError("\(path):\(number + 1): an answer needs \"access\" (the tiers the app grants) or \"skip\"")
            }
            answers["\(caseID)#\(step)"] = answer
        }
        self.answers = answers
        self.log = log
        self.stopped = stopped
    }

    public func show(_ text: String) async { log(text) }

    public func answer(_ request: AnswerRequest) async throws -> Answer {
        guard let answer = answers["\(request.caseID)#\(request.step)"] else {
            stopped("the answers file has no answer for case \"\(request.caseID)\" step \(request.step); the run stops here")
            throw CancellationError()
        }
        return answer
    }

    public func wait(milliseconds: Int64, label: String) async throws {
        log("(replay) would wait \(label)")
    }
}
