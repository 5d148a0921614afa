import Testing
import MatrixModel
import TestSupport

/// `--case`, `--kind`, `--tag` and `--profile`, and the `tags` and `profiles` a matrix declares.
@Suite("Case selection")
struct CaseSelectionTests {
    static func matrix() -> Matrix {
        let step = [Step(action: .launch)]
        var matrix = ExampleMatrix.matrix(cases: [
            MatrixCase(id: "fresh-purchase/pro", kind: "fresh-purchase", account: "a", tags: ["smoke"], steps: step),
            MatrixCase(id: "fresh-purchase/plus", kind: "fresh-purchase", account: "a", steps: step),
            MatrixCase(id: "refund/pro", kind: "refund", account: "a", tags: ["smoke", "release-blocker"], steps: step),
            MatrixCase(id: "renewal/plus", kind: "renewal", account: "a", steps: step),
        ])
        matrix.profiles = [CaseProfile(name: "smoke", selection: CaseSelection(tags: ["smoke"])),
                           CaseProfile(name: "purchases", selection: CaseSelection(cases: ["fresh-purchase/*"]))]
        return matrix
    }

    @Test("globs: * any run of characters (slashes too), ? one character, the rest itself, the whole id",
          arguments: [("refund/*", "refund/pro", true), ("*/pro", "fresh-purchase/pro", true), ("*", "a/b/c", true),
                      ("fresh-purchase/pr?", "fresh-purchase/pro", true), ("refund/*", "refunds/pro", false),
                      ("refund", "refund/pro", false), ("*pro*", "fresh-purchase/plus", false), ("a*b*c", "aXbYc", true),
                      ("a*b*c", "aXbY", false), ("", "", true), ("**", "x", true)])
    func globs(pattern: String, id: String, matches: Bool) {
        #expect(CaseSelection.glob(pattern, matches: id) == matches)
    }

    @Test("values of one criterion are alternatives; criteria, and a profile, combine")
    func combining() throws {
        let matrix = Self.matrix()
        func ids(_ selection: CaseSelection) throws -> [String] { try selection.resolve(in: matrix).map { matrix.cases[$0].id } }
        #expect(try ids(CaseSelection(cases: ["refund/*", "renewal/*"])) == ["refund/pro", "renewal/plus"])
        #expect(try ids(CaseSelection(kinds: ["fresh-purchase"], tags: ["smoke"])) == ["fresh-purchase/pro"])
        #expect(try ids(CaseSelection(profile: "smoke")) == ["fresh-purchase/pro", "refund/pro"])
        #expect(try ids(CaseSelection(profile: "purchases", tags: ["smoke"])) == ["fresh-purchase/pro"])
        #expect(CaseSelection().isEmpty && !CaseSelection(tags: ["x"]).isEmpty)
        #expect(CaseSelection(profile: "smoke", kinds: ["refund"]).summary == "profile smoke, kind refund")
    }

    @Test("what matches nothing is an error with the nearest name",
          arguments: [(CaseSelection(cases: ["refnd/pro"]), #"no case id matches "refnd/pro"; did you mean "refund/pro"?"#),
                      (CaseSelection(kinds: ["renewals"]), #"no case of the matrix has kind "renewals"; did you mean "renewal"?"#),
                      (CaseSelection(tags: ["smok"]), #"no case of the matrix has tag "smok"; did you mean "smoke"?"#),
                      (CaseSelection(profile: "smok"), #"the matrix has no profile "smok"; did you mean "smoke"?"#),
                      (CaseSelection(kinds: ["refund"], tags: ["release-blocker"]), nil),
                      (CaseSelection(kinds: ["renewal"], tags: ["smoke"]), "no case matches kind renewal, tag smoke")])
    func problems(selection: CaseSelection, message: String?) {
        do {
            _ = try selection.resolve(in: Self.matrix())
            #expect(message == nil)
        } catch {
            #expect(error.message == message)
        }
    }
}

@Suite("Matrix loader: tags and profiles")
struct ProfileLoadingTests {
    static func source(_ profiles: String, tags: String = #"["smoke"]"#) -> String {
        Sample.matrix(cases: """
                {"id": "fresh-purchase/pro", "kind": "fresh-purchase", "account": "fresh", "tags": \(tags), "steps": [
                  {"action": "launch", "expect": {"access": []}}
                ]}
            """) .replacingOccurrences(of: #""cases": ["#, with: #""profiles": \#(profiles), "cases": ["#)
    }

    @Test("tags and profiles load into the model")
    func loads() throws {
        let result = load(MarkedSource(Self.source(#"{"smoke": {"description": "TestFlight", "tags": ["smoke"]}, "all": {"cases": ["*"]}}"#)))
        #expect(result.diagnostics.map(\.rendered) == [])
        let matrix = try #require(result.matrix)
        #expect(matrix.cases[0].tags == ["smoke"])
        #expect(matrix.profiles.map(\.name) == ["smoke", "all"])
        #expect(matrix.profiles[0].description == "TestFlight" && matrix.profiles[0].selection == CaseSelection(tags: ["smoke"]))
    }

    @Test("a profile that selects nothing, or names a case, kind or tag the matrix lacks, is a located error")
    func problems() throws {
        let source = MarkedSource(Self.source(#"{"empty": {}, "typo": {"cases": [⟨c⟩"fresh-purchase/pr"], "kinds": [⟨k⟩"refund"], "tags": [⟨t⟩"smoek"]}}"#,
                                              tags: #"["smoke", ⟨dup⟩"smoke", ⟨space⟩"a b"]"#))
        let result = load(source)
        #expect(result.matrix == nil)
        let rendered = result.diagnostics.map { "\($0.severity.rawValue) \($0.code.rawValue) \($0.location.line):\($0.location.column) \($0.message)" }
        func at(_ marker: String) -> String { source.markers[marker].map { "\($0.line):\($0.column)" } ?? "?" }
        #expect(rendered.contains("warning MX019 \(at("dup")) tag \"smoke\" is given twice"))
        #expect(rendered.contains("error MX019 \(at("space")) tag \"a b\" has a space"))
        #expect(rendered.contains { $0.hasPrefix("error MX023 ") && $0.hasSuffix(#"profile "empty" selects nothing"#) })
        #expect(rendered.contains(#"error MX019 \#(at("c")) profile "typo": no case id matches "fresh-purchase/pr"; did you mean "fresh-purchase/pro"?"#))
        #expect(rendered.contains { $0.hasPrefix("error MX019 \(at("k")) profile \"typo\": no case of the matrix has kind \"refund\"") })
        #expect(rendered.contains(#"error MX019 \#(at("t")) profile "typo": no case of the matrix has tag "smoek"; did you mean "smoke"?"#))
    }
}
