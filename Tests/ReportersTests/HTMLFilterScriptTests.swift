import Foundation
import Testing
@testable import Reporters
@testable import TestSupport

/// report.html's filters, run in Node with a minimal document: a case kind is a string from the matrix, and one
/// that names a property every JavaScript object has must be filtered like any other.
@Suite("HTML report filters")
struct HTMLFilterScriptTests {
    static let node = ["/usr/bin/node", "/usr/local/bin/node"].first { FileManager.default.isExecutableFile(atPath: $0) }

    static let harness = #"""
    const fs = require('fs');
    const script = fs.readFileSync(process.argv[2], 'utf8');
    function box(filter, value, checked) { return { checked, value, dataset: { filter }, addEventListener() {} }; }
    const boxes = [box('verdict', 'pass', true), box('kind', 'refund', true), box('kind', 'constructor', false),
                   box('kind', '__proto__', false), box('kind', 'toString', false)];
    const sections = ['refund', 'constructor', '__proto__', 'toString', 'hasOwnProperty'].map(kind => ({ hidden: false, dataset: { verdict: 'pass', kind } }));
    const shown = { textContent: '' };
    const panel = { hidden: true, querySelectorAll() { return boxes; } };
    global.document = {
      getElementById(id) { return id === 'filters' ? panel : shown; },
      querySelectorAll(selector) { return selector === 'section.case' ? sections : []; },
    };
    eval(script);
    console.log(JSON.stringify({ hidden: sections.map(s => s.hidden), shown: shown.textContent }));
    """#

    @Test("kinds named constructor, __proto__, toString or hasOwnProperty are hidden when their box is not ticked",
          .enabled(if: node != nil, "needs Node.js"))
    func prototypeNames() async throws {
        let directory = try MatrixBinary.scratchDirectory("matrix-html-script")
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = directory.appendingPathComponent("report.js")
        let harness = directory.appendingPathComponent("harness.js")
        try HTMLAssets.script.write(to: script, atomically: true, encoding: .utf8)
        try Self.harness.write(to: harness, atomically: true, encoding: .utf8)
        let result = try await ChildProcess.run(URL(fileURLWithPath: try #require(Self.node)), [harness.path, script.path])
        #expect(result.exit.status == 0, "\(result.stderr)")
        #expect(result.stdout == #"{"hidden":[false,true,true,true,true],"shown":"Showing 1 of 5 cases"}"# + "\n", "\(result.stdout)")
    }
}
