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
    /// Whether ``wait(milliseconds:label:)`` lets the time pass; `false` in a replay, whose steps are then
    /// stamped with the time they would have had, so that reports draw the run to scale.
    var sleepsWaits: Bool { get }
}

extension Prompter {
    /// A prompter waits for real unless it says otherwise.
    public var sleepsWaits: Bool { true }
}

/// Answers from a JSON Lines file, for scripted and replayed guided runs. Waits are not slept.
///
/// When the file has no answer for a step, the tester has not got that far: the run stops there as
/// interrupted, to be resumed (`matrix run --resume`) once the answers are added.
public struct ScriptedPrompter: Prompter {
    let answers: [String: Answer]
    /// The line of each answer in the file, for messages.
    let lines: [String: Int]
    /// Where each answer's members' values start on their line (1-based columns, by member name), for located
    /// errors.
    let columns: [String: [String: Int]]
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
        var columns: [String: [String: Int]] = [:]
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
            // The line parsed as a decoded answer; its positions come from the positioned reader.
            let members = JSONReader.read(Array(line.utf8)).value?.objectValue?.members ?? []
            columns["\(caseID)#\(step)"] = Dictionary(members.map { ($0.key, $0.value.location.column) }, uniquingKeysWith: { first, _ in first })
        }
        guard problems.isEmpty else { throw AdapterError(problems.joined(separator: "\n")) }
        self.answers = answers
        self.lines = lines
        self.columns = columns
        self.path = path
        self.log = log
        self.stopped = stopped
    }

    /// What does not fit the matrix, every problem located `path:line:column:`: answers for cases or steps it
    /// does not have (a typo in a case id would leave the real case unanswered and stop the run at its first
    /// step), and answers naming tiers or results it does not have. The run does not start with any of them.
    public func problems(against matrix: Matrix) -> (errors: [String], warnings: [String]) {
        var errors: [String] = []
        let tiers = Set(matrix.tiers.map(\.name))
        let results = Set(Expectation.purchaseResults + Expectation.restoreResults)
        for (key, answer) in answers.sorted(by: { (lines[$0.key] ?? 0) < (lines[$1.key] ?? 0) }) {
            // `path:line:column: error:`, the column where the member's value starts.
            func at(_ member: String) -> String { "\(path):\(lines[key] ?? 0):\(columns[key]?[member] ?? 1): error:" }
            guard let caseID = answer.case, let step = answer.step else { continue }
            guard let matrixCase = matrix.cases.first(where: { $0.id == caseID }) else {
                let hint = Suggestion.didYouMean(caseID, among: matrix.cases.map(\.id)).map { "; \($0)" } ?? ""
                errors.append("\(at("case")) the matrix has no case \"\(caseID)\"\(hint)")
                continue
            }
            if !matrixCase.steps.indices.contains(step) {
                errors.append("\(at("step")) case \"\(caseID)\" has no step \(step) (its steps are numbered from 0 to \(matrixCase.steps.count - 1))")
            }
            for tier in answer.access ?? [] where !tiers.contains(tier) {
                errors.append("\(at("access")) unknown tier \"\(tier)\"; the matrix's tiers are " + matrix.tiers.map(\.name).joined(separator: ", "))
            }
            if let result = answer.result, !results.contains(result) {
                let all = Expectation.purchaseResults + Expectation.restoreResults
                let hint = Suggestion.didYouMean(result, among: all, synonyms: Synonyms.results).map { "; \($0)" } ?? "; use " + all.joined(separator: ", ")
                errors.append("\(at("result")) \"\(result)\" is not a result\(hint)")
            }
        }
        return (errors, [])
    }

    /// The first step a guided run of `cases` would ask about when the file has no answer for it, as
    /// `(case, step)`: the steps an environment limit skips (``GuidedLimits``) are never asked, nor the rest of
    /// their case. `nil` when the file answers that first step (or the run asks nothing).
    public func firstUnansweredStep(of matrix: Matrix, cases: [Int], environment: EnvironmentKind,
                                    schedule: RenewalSchedule) -> (case: String, step: Int)? {
        for index in cases {
            let matrixCase = matrix.cases[index]
            if GuidedLimits.clockSkip(matrix.storeSettings(for: matrixCase).clock, environment: environment) != nil { continue }
            var renewals: [String: Int] = [:]
            for (number, step) in matrixCase.steps.enumerated() {
                let product = step.product ?? ""
                if GuidedLimits.skip(for: step, environment: environment, schedule: schedule, renewalsSoFar: renewals[product] ?? 0) != nil {
                    break
                }
                if step.action == .renew { renewals[product, default: 0] += step.count ?? 1 }
                return answers["\(matrixCase.id)#\(number)"] == nil ? (matrixCase.id, number) : nil
            }
        }
        return nil
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

    /// Waits are recorded, not slept.
    public var sleepsWaits: Bool { false }
}
