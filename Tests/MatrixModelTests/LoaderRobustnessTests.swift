import Foundation
import Testing
import MatrixJSON
import MatrixModel

/// Bad input never crashes the loader: every malformed matrix gets located diagnostics, quickly.
@Suite("Loader robustness")
struct LoaderRobustnessTests {
    static let valid = """
        {
          "schemaVersion": 1,
          "name": "robust",
          "app": {"bundleId": "com.example.app"},
          "catalog": {"products": [
            {"productID": "pro", "type": "NonConsumable", "displayPrice": "9.99"},
            {"productID": "coins", "type": "Consumable", "displayPrice": "0.99"}],
            "subscriptionGroups": [{"id": "g", "name": "Plans", "subscriptions": [
              {"productID": "monthly", "type": "RecurringSubscription", "recurringSubscriptionPeriod": "P1M", "groupNumber": 1}]}]},
          "tiers": {"pro": ["pro"], "plus": ["monthly"]},
          "consumables": {"coins": {"balance": "coins", "amount": 100}},
          "accounts": {"a": {"description": "new"}, "b": {"owns": ["pro"]}},
          "store": {"askToBuy": false, "gracePeriodDays": 16},
          "cases": [
            {"id": "one", "kind": "fresh-purchase", "account": "a", "steps": [
              {"action": "launch", "expect": {"access": []}},
              {"action": "purchase", "product": "pro", "expect": {"result": "success", "access": ["pro"], "notifications": ["ONE_TIME_CHARGE"]}},
              {"action": "advanceTime", "by": "P3D", "expect": {"balance": {"coins": 0}}},
              {"action": "renew", "product": "monthly", "count": 2, "expect": {"subscriptionStatus": {"Plans": "subscribed"}, "renewals": 2}}]}
          ]
        }
        """

    func load(_ bytes: [UInt8]) -> MatrixLoader.Result {
        MatrixLoader.load(bytes, file: "m.json") { _ in .unreadable(reason: "no catalog files here") }
    }

    @Test("the sample is valid")
    func sampleIsValid() {
        let result = load(Array(Self.valid.utf8))
        #expect(result.matrix != nil, "\(result.diagnostics.map(\.rendered))")
    }

    @Test("truncated at every byte: never a crash, always a located error")
    func truncatedEverywhere() {
        let bytes = Array(Self.valid.utf8)
        for length in 0..<bytes.count {
            let result = load(Array(bytes.prefix(length)))
            guard let error = result.diagnostics.first(where: { $0.severity == .error }) else {
                Issue.record("a matrix truncated to \(length) bytes loaded without error")
                continue
            }
            #expect(result.matrix == nil)
            #expect(error.location.line >= 1 && error.location.column >= 1)
        }
    }

    /// Every value of the sample replaced by one of the wrong JSON type, one at a time.
    @Test("a wrong type at every field: an error, located at that field")
    func wrongTypeEverywhere() throws {
        let root = try JSONSerialization.jsonObject(with: Data(Self.valid.utf8))
        var paths: [[Any]] = []
        func walk(_ value: Any, _ path: [Any]) {
            if !path.isEmpty { paths.append(path) }
            if let object = value as? [String: Any] { for (key, child) in object { walk(child, path + [key]) } }
            if let array = value as? [Any] { for (index, child) in array.enumerated() { walk(child, path + [index]) } }
        }
        walk(root, [])
        func replacing(_ value: Any, at path: ArraySlice<Any>) -> Any {
            guard let head = path.first else {
                if value is String { return 42 }
                if value is [Any] { return "not an array" }
                if value is [String: Any] { return [1, 2] }
                return ["not": "a scalar"]
            }
            if var object = value as? [String: Any], let key = head as? String, let child = object[key] {
                object[key] = replacing(child, at: path.dropFirst())
                return object
            }
            if var array = value as? [Any], let index = head as? Int {
                array[index] = replacing(array[index], at: path.dropFirst())
                return array
            }
            return value
        }
        // Free-text fields accept any string, and some numbers accept other numbers; a wrong type is still wrong.
        var checked = 0
        for path in paths {
            let mutated = replacing(root, at: path[...])
            let data = try JSONSerialization.data(withJSONObject: mutated)
            let result = load(Array(data))
            let pointer = "/" + path.map { "\($0)" }.joined(separator: "/")
            let errors = result.diagnostics.filter { $0.severity == .error }
            if errors.isEmpty {
                // A catalog price may be written as a number (the reader is lenient across Xcode versions).
                #expect(pointer.hasSuffix("/displayPrice"), "replacing \(pointer) was accepted silently")
                continue
            }
            checked += 1
            #expect(result.matrix == nil)
        }
        #expect(checked > paths.count / 2)
    }

    @Test("huge numbers, deep nesting, BOM, invalid UTF-8 and empty input are diagnosed fast", .timeLimit(.minutes(1)))
    func oddInputs() {
        let cases: [(String, [UInt8], DiagnosticCode)] = [
            ("empty", [], .emptyInput),
            ("only a BOM", [0xEF, 0xBB, 0xBF], .emptyInput),
            ("invalid UTF-8", Array(#"{"name": ""#.utf8) + [0xFF, 0xFE] + Array(#""}"#.utf8), .invalidEncoding),
            ("10,000-deep nesting", Array(String(repeating: "[", count: 10_000).utf8), .nestingTooDeep),
            ("a huge schemaVersion", Array(#"{"schemaVersion": 1e400}"#.utf8), .invalidValue),
            ("a huge integer", Array(#"{"schemaVersion": 123456789012345678901234567890}"#.utf8), .invalidValue),
        ]
        for (name, bytes, code) in cases {
            let result = load(bytes)
            #expect(result.matrix == nil)
            #expect(result.diagnostics.contains { $0.code == code }, "\(name): \(result.diagnostics.map(\.rendered))")
        }
        var bom = [UInt8]([0xEF, 0xBB, 0xBF])
        bom += Array(Self.valid.utf8)
        #expect(load(bom).matrix != nil, "a UTF-8 byte order mark is accepted")
    }
}
