import Foundation
import MatrixEngine
import MatrixJSON
import MatrixModel

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
    /// The line of each answer in the file, for messages.
    let lines: [String: Int]
    let path: String
    let log: @Sendable (String) -> Void
    let stopped: @Sendable (String) -> Void

    /// Reads the answers file.
    /// - Parameters:
    ///   - log: receives instructions and waits (they are not shown to anyone).
    ///   - stopped: receives the reason the run stops early.
    /// - Throws: ``AdapterError`` naming every line that is malformed or incomplete.
    public init(jsonLines data: Data, path: String, log: @escaping @Sendable (String) -> Void = { _ in },
                stopped: @escaping @Sendable (String) -> Void = { _ in }) throws {
        var answers: [String: Answer] = [:]
        var lines: [String: Int] = [:]
        var problems: [String] = []
        // Split on bytes: as Characters, "\r\n" is one grapheme and a file saved with CRLF would be one line.
        let text = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
        for (number, line) in text.enumerated() where !line.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            let answer: Answer
            do {
                answer = try StrictJSON.decode(Answer.self, from: Data(line.utf8))
            } catch where error.isDuplicateKey {
                problems.append("\(error.located(in: path, line: number + 1)); an answer names each member once")
                continue
            } catch {
                problems.append("\(path):\(number + 1): not an answer: expected a JSON object such as "
                                + #"{"case": "refund/pro", "step": 2, "access": []}"#)
                continue
            }
            guard let caseID = answer.case, let step = answer.step else {
                problems.append("\(path):\(number + 1): an answer needs \"case\" and \"step\"")
                continue
            }
            if answer.access == nil && answer.skip == nil {
                problems.append("\(path):\(number + 1): an answer needs \"access\" (the tiers the app grants) or \"skip\"")
                continue
            }
            if let first = lines["\(caseID)#\(step)"] {
                problems.append("\(path):\(number + 1): a second answer for case \"\(caseID)\" step \(step) (the first is on line \(first))")
                continue
            }
            answers["\(caseID)#\(step)"] = answer
            lines["\(caseID)#\(step)"] = number + 1
        }
        guard problems.isEmpty else { throw AdapterError(problems.joined(separator: "\n")) }
        self.answers = answers
        self.lines = lines
        self.path = path
        self.log = log
        self.stopped = stopped
    }

    /// What does not fit the matrix: answers naming tiers or results it does not have (errors), and answers for
    /// cases or steps it does not have (warnings: likely a typo in a case id).
    public func problems(against matrix: Matrix) -> (errors: [String], warnings: [String]) {
        var errors: [String] = []
        var warnings: [String] = []
        let tiers = Set(matrix.tiers.map(\.name))
        let results = Set(Expectation.purchaseResults + Expectation.restoreResults)
        for (key, answer) in answers.sorted(by: { (lines[$0.key] ?? 0) < (lines[$1.key] ?? 0) }) {
            let place = "\(path):\(lines[key] ?? 0)"
            guard let caseID = answer.case, let step = answer.step else { continue }
            guard let matrixCase = matrix.cases.first(where: { $0.id == caseID }) else {
                let hint = Suggestion.didYouMean(caseID, among: matrix.cases.map(\.id)).map { "; \($0)" } ?? ""
                warnings.append("\(place): the matrix has no case \"\(caseID)\"\(hint)")
                continue
            }
            if !matrixCase.steps.indices.contains(step) {
                warnings.append("\(place): case \"\(caseID)\" has no step \(step) (steps are numbered from 0 to \(matrixCase.steps.count - 1))")
            }
            for tier in answer.access ?? [] where !tiers.contains(tier) {
                errors.append("\(place): unknown tier \"\(tier)\"; the matrix's tiers are " + matrix.tiers.map(\.name).joined(separator: ", "))
            }
            if let result = answer.result, !results.contains(result) {
                errors.append("\(place): \"\(result)\" is not a result; use " + (Expectation.purchaseResults + Expectation.restoreResults).joined(separator: ", "))
            }
        }
        return (errors, warnings)
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
