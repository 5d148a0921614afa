import Foundation
import Testing
@testable import MatrixModel
@testable import TestSupport

/// `schema/matrix.schema.json` names the same vocabulary as the loader: actions, parameters per action, case
/// kinds, outcomes, states, notification types. (SchemaSampleTests compares verdicts on whole documents.)
@Suite("JSON Schema vocabulary")
struct SchemaVocabularyTests {
    let schema: [String: Any]

    init() throws {
        let url = Fixtures.packageDirectory.appendingPathComponent("schema/matrix.schema.json")
        schema = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    }

    /// The value at a path of object keys.
    func value(_ path: String...) -> Any? {
        var current: Any? = schema
        for key in path { current = (current as? [String: Any])?[key] }
        return current
    }

    func enumeration(_ path: String...) -> Set<String> {
        var current: Any? = schema
        for key in path { current = (current as? [String: Any])?[key] }
        return Set(((current as? [String: Any])?["enum"] as? [Any] ?? []).compactMap { $0 as? String })
    }

    @Test("draft 2020-12, and the top level requires what the loader requires")
    func topLevel() {
        #expect(schema["$schema"] as? String == "https://json-schema.org/draft/2020-12/schema")
        #expect(Set(schema["required"] as? [String] ?? []) == ["schemaVersion", "app", "catalog", "tiers", "accounts", "cases"])
        #expect(schema["additionalProperties"] as? Bool == false)
    }

    @Test("actions, outcomes, time points, termination points and case kinds are the model's")
    func enums() {
        #expect(enumeration("$defs", "step", "properties", "action") == Set(Action.allCases.map(\.rawValue)))
        #expect(enumeration("$defs", "step", "properties", "outcome") == Set(PurchaseOutcome.allCases.map(\.rawValue)))
        #expect(enumeration("$defs", "step", "properties", "to") == Set(TimePoint.allCases.map(\.rawValue)))
        #expect(enumeration("$defs", "step", "properties", "terminate") == Set(TerminationPoint.allCases.map(\.rawValue)))
        #expect(enumeration("$defs", "case", "properties", "kind") == Set(MatrixCase.knownKinds))
        #expect(enumeration("$defs", "expectation", "properties", "subscriptionStatus", "additionalProperties")
            == Set(Expectation.subscriptionStates))
        #expect(enumeration("$defs", "expectation", "properties", "result") == Set(Expectation.purchaseResults + Expectation.restoreResults))
    }

    @Test("notification types and subtypes are the loader's")
    func notifications() {
        let loader = Set(MatrixDecoder.notificationTypes.flatMap { type, subtypes in [type] + subtypes.map { "\(type)/\($0)" } })
        #expect(enumeration("$defs", "expectation", "properties", "notifications", "items") == loader)
    }

    @Test("step keys are the loader's, and each action forbids exactly the parameters it does not take")
    func parametersPerAction() throws {
        let properties = try #require(value("$defs", "step", "properties") as? [String: Any])
        #expect(Set(properties.keys) == MatrixDecoder.stepKeys)
        let rules = try #require(value("$defs", "step", "allOf") as? [[String: Any]])
        let parameters = MatrixDecoder.stepKeys.subtracting(MatrixDecoder.commonKeys)
        for action in Action.allCases {
            let rule = rules.first { (($0["if"] as? [String: Any])?["properties"] as? [String: Any])?["action"] as? [String: String] == ["const": action.rawValue] }
            let then = rule?["then"] as? [String: Any]
            let forbidden = Set(((then?["properties"] as? [String: Any]) ?? [:]).filter { $0.value as? Bool == false }.map(\.key))
            #expect(forbidden == parameters.subtracting(MatrixDecoder.parameters(of: action)), "\(action)")
            let required = Set(then?["required"] as? [String] ?? [])
            #expect(required.contains("product") == action.requiresProduct, "\(action)")
        }
    }

    @Test("every property the schema defines has a description, for editors (rule blocks such as if/then excepted)")
    func descriptions() {
        var missing: [String] = []
        func walk(_ node: Any, _ path: String) {
            guard let object = node as? [String: Any] else {
                if let array = node as? [Any] { for (index, item) in array.enumerated() { walk(item, path + "/\(index)") } }
                return
            }
            for (key, value) in object {
                if ["if", "then", "else", "not", "allOf", "anyOf", "oneOf"].contains(key) { continue }
                if key == "properties", let properties = value as? [String: Any] {
                    for (name, definition) in properties {
                        if let definition = definition as? [String: Any], definition["description"] == nil {
                            missing.append(path + "/properties/" + name)
                        }
                    }
                }
                walk(value, path + "/" + key)
            }
        }
        walk(schema, "")
        #expect(missing.isEmpty, "\(missing.sorted())")
    }
}
