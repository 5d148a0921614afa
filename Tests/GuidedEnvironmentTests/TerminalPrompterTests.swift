import Foundation
@testable import GuidedEnvironment
import Testing
import Threading

/// A guided run's questions at a terminal, answered from a script of typed lines.
@Suite("Terminal prompter")
struct TerminalPrompterTests {
    /// A prompter reading `lines` in turn (then end of input) and collecting what it writes.
    final class Terminal: Sendable {
        let typed: Locked<[String]>
        let shown = Locked("")
        init(_ lines: [String]) { typed = Locked(lines) }
        var prompter: TerminalPrompter {
            TerminalPrompter(write: { text in self.shown.withLock { $0 += text } },
                             readLine: { self.typed.withLock { $0.isEmpty ? nil : $0.removeFirst() } })
        }
    }

    let request = AnswerRequest(caseID: "refund/pro", step: 2, action: .refund, tiers: ["pro", "plus"], results: nil,
                                asksTransactionId: false)

    @Test("an empty line is asked again, not taken as no access; \"none\" is no access")
    func emptyLineAskedAgain() async throws {
        let terminal = Terminal(["", "  ", "none"])
        let answer = try await terminal.prompter.answer(request)
        #expect(answer.access == [])
        #expect(terminal.shown.withLock { $0.components(separatedBy: "type \"none\" if the app grants no tier").count } == 3)
    }

    @Test("tiers are comma-separated; an unknown tier is asked again; a skip records its reason")
    func tiersAndSkips() async throws {
        let terminal = Terminal(["gold", "pro, plus,"])
        #expect(try await terminal.prompter.answer(request).access == ["pro", "plus"])
        #expect(terminal.shown.withLock { $0.contains("unknown tier gold; choose from pro, plus") })
        #expect(try await Terminal(["skip: no device"]).prompter.answer(request).skip == "no device")
    }

    @Test("input that ends before an answer stops the run (a cancellation, to be resumed)")
    func endOfInput() async throws {
        let terminal = Terminal([""])
        await #expect(throws: CancellationError.self) { try await terminal.prompter.answer(request) }
        #expect(terminal.shown.withLock { $0.contains("the input ended before case \"refund/pro\" step #2 was answered") })
    }
}
