import Foundation
import Testing
@testable import GuidedEnvironment
@testable import MatrixEngine

/// `--answers FILE`: the JSON Lines file of a scripted guided run.
@Suite("Scripted answers")
struct ScriptedPrompterTests {
    @Test("a file saved with CRLF line ends, or with blank lines, is read line by line")
    func crlfLines() throws {
        let text = "{\"case\":\"c1\",\"step\":0,\"access\":[]}\r\n\r\n{\"case\":\"c1\",\"step\":1,\"access\":[\"pro\"],\"result\":\"success\"}\r\n"
        let prompter = try ScriptedPrompter(jsonLines: Data(text.utf8), path: "a.jsonl")
        #expect(prompter.answers["c1#0"]?.access == [])
        #expect(prompter.answers["c1#1"]?.access == ["pro"])
        #expect(prompter.lines["c1#1"] == 3)
    }

    @Test("every malformed line is named, with its line number, in one error")
    func malformedLines() throws {
        let text = """
            {"case":"c1","step":0,"access":[]}
            not json
            {"case":"c1","access":[]}
            {"case":"c1","step":1}
            {"case":"c1","step":0,"access":["pro"]}
            """
        #expect {
            try ScriptedPrompter(jsonLines: Data(text.utf8), path: "a.jsonl")
        } throws: { error in
            let message = (error as? AdapterError)?.message ?? ""
            return message.contains("a.jsonl:2: not an answer")
                && message.contains(#"a.jsonl:3: an answer needs "case" and "step""#)
                && message.contains(#"a.jsonl:4: an answer needs "access""#)
                && message.contains(#"a.jsonl:5: a second answer for case "c1" step 0 (the first is on line 1)"#)
        }
    }

    @Test("an answer that names a member twice is refused with the key and its column, not read as either value")
    func repeatedMember() throws {
        let text = #"{"case":"c1","step":0,"access":[],"access":["pro"]}"# + "\n"
        #expect {
            try ScriptedPrompter(jsonLines: Data(text.utf8), path: "a.jsonl")
        } throws: { error in
            (error as? AdapterError)?.message == #"a.jsonl:1:35: duplicate key "access": each key may appear once in an object (at /access); "#
                + "an answer names each member once"
        }
    }
}
