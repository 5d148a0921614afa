import Foundation
import Testing
import DriverKit
import MatrixModel
import TestSupport

@Suite("Driver protocol messages")
struct DriverMessageTests {
    func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test("a perform request is one line with sorted keys, and the step travels without its expectation")
    func performRequestLine() throws {
        let step = Step(action: .purchase, product: ExampleMatrix.pro, outcome: .success, expect: Expectation(access: ["pro"]))
        let request = DriverRequest(id: 7, call: .perform(PerformParams(case: "fresh/pro", index: 1, account: "fresh", step: step)))
        let line = text(try DriverProtocol.line(request))
        #expect(line == #"{"id":7,"method":"perform","params":{"account":"fresh","case":"fresh/pro","index":1,"step":{"action":"purchase","outcome":"success","product":"com.example.storekitmatrix.pro"}}}"# + "\n")
        guard case .success(let parsed) = DriverRequest.parse(Array(line.utf8).dropLast()) else {
            Issue.record("the line does not parse back")
            return
        }
        guard case .perform(let params) = parsed.call else {
            Issue.record("parsed as \(parsed.call.method)")
            return
        }
        #expect(parsed.id == 7)
        #expect(params.step.expect == nil)
        #expect(params.step.product == ExampleMatrix.pro)
    }

    @Test("request lines that are not requests get the documented error codes, with the id when it can be read",
          arguments: [
            ("not json", nil, DriverError.parseError),
            (#"{"method":"reset"}"#, nil, DriverError.invalidRequest),
            (#"[1,2]"#, nil, DriverError.invalidRequest),
            (#"{"id":4,"method":"perform","params":{"case":"x"}}"#, 4, DriverError.invalidParams),
          ] as [(String, Int?, Int)])
    func badRequests(line: String, id: Int?, code: Int) {
        guard case .failure(let failure) = DriverRequest.parse(Array(line.utf8)) else {
            Issue.record("\(line) parsed as a request")
            return
        }
        #expect(failure.id == id)
        #expect(failure.error.code == code)
    }

    @Test("an unknown method parses, so that the driver can answer methodNotFound")
    func unknownMethod() {
        guard case .success(let request) = DriverRequest.parse(Array(#"{"id":2,"method":"teleport","params":{}}"#.utf8)) else {
            Issue.record("did not parse")
            return
        }
        #expect(request.call == .unknown("teleport"))
    }

    @Test("perform results on the wire: observed with the modelled wall time, or unsupported with a reason")
    func performResultWire() throws {
        let observed = text(try DriverResponse.line(id: 3, result: PerformResult.observed(Observation(access: ["pro"], storeTime: 5), modelledWallTimeMs: 60_000)))
        #expect(observed.hasPrefix(#"{"id":3,"result":{"modelledWallTimeMs":60000,"observation":{"access":["pro"],"#))
        #expect(observed.hasSuffix(#""storeTime":5,"subscriptionStatus":{},"transactionIds":[],"transactions":[]},"status":"observed"}}"# + "\n"))
        let unsupported = text(try DriverResponse.line(id: 4, result: PerformResult.unsupported(reason: "no sheet")))
        #expect(unsupported == #"{"id":4,"result":{"reason":"no sheet","status":"unsupported"}}"# + "\n")
        let error = text(DriverResponse.line(id: nil, error: DriverError(code: -32700, message: "not JSON")))
        #expect(error == #"{"error":{"code":-32700,"message":"not JSON"},"id":null}"# + "\n")
    }

    @Test("a driver's lines: a result decodes with a lenient observation, an error, a progress notification")
    func driverOutput() throws {
        let result = try DriverOutput.parse(Array(#"{"id":5,"result":{"status":"observed","observation":{"access":["pro"]}}}"#.utf8))
        guard case .response(let response) = result else {
            Issue.record("not a response")
            return
        }
        #expect(response.id == 5)
        // Fields newer than the driver protocol's first version, left out, are not observed.
        #expect(try response.result(as: PerformResult.self)
            == .observed(Observation(access: ["pro"], notObserved: ["displayPrice", "introductoryOffer", "serverNotifications"]), modelledWallTimeMs: nil))

        guard case .response(let failed) = try DriverOutput.parse(Array(#"{"id":6,"error":{"code":1000,"message":"no sheet"}}"#.utf8)) else {
            Issue.record("not a response")
            return
        }
        #expect(throws: DriverError(code: 1000, message: "no sheet")) { try failed.result(as: PerformResult.self) }

        let progress = try DriverOutput.parse(Array(#"{"method":"progress","params":{"id":6,"waitMs":90000,"message":"renewing"}}"#.utf8))
        #expect(progress == .progress(ProgressParams(id: 6, waitMs: 90_000, message: "renewing")))
    }

    @Test("lines that are not protocol messages are refused with a reason",
          arguments: ["garbage", "[]", #"{"id":1}"#, #"{"result":{}}"#, #"{"id":1,"result":{},"error":{"code":1,"message":"x"}}"#,
                      #"{"method":"progress","params":null}"#])
    func refusesNonMessages(line: String) {
        #expect(throws: DriverOutputError.self) { try DriverOutput.parse(Array(line.utf8)) }
    }

    @Test("a notification this protocol version does not define is passed on to be ignored (section 13)")
    func ignoresUnknownNotifications() throws {
        #expect(try DriverOutput.parse(Array(#"{"method":"log","params":{"text":"hi"}}"#.utf8)) == .otherNotification(method: "log"))
    }

    @Test("initialize carries the matrix and catalog files, and the driver rebuilds exactly the matrix the runner loaded")
    func initializeRebuildsTheMatrix() throws {
        let directory = Fixtures.packageDirectory.appendingPathComponent("matrices")
        let matrixBytes = try Data(contentsOf: directory.appendingPathComponent("release.json"))
        let catalogBytes = try Data(contentsOf: directory.appendingPathComponent("Products.storekit"))
        let loaded = MatrixLoader.load(Array(matrixBytes), file: "matrices/release.json") { _ in
            .contents(Array(catalogBytes), displayPath: "matrices/Products.storekit")
        }
        let matrix = try #require(loaded.matrix)
        let params = InitializeParams(matrix: matrix, matrixPath: "matrices/release.json", matrixSource: String(decoding: matrixBytes, as: UTF8.self),
                                      catalogSource: String(decoding: catalogBytes, as: UTF8.self), runner: .init(name: "matrix", version: "test"))
        let line = try DriverProtocol.line(DriverRequest(id: 1, call: .initialize(params)))
        guard case .success(let request) = DriverRequest.parse(line.dropLast()), case .initialize(let received) = request.call else {
            Issue.record("initialize does not parse back")
            return
        }
        #expect(received == params)
        #expect(try received.loadMatrix() == matrix)
        #expect(!received.tiers.isEmpty && received.tiers == matrix.tiers)
        #expect(received.accounts == matrix.accounts)
        #expect(received.catalog.products.first { $0.productId == ExampleMatrix.monthly }?.subscriptionPeriod == "P1M")
        #expect(received.catalog.products.first { $0.productId == ExampleMatrix.monthly }?.type == "autoRenewable")
        #expect(received.cases.count == matrix.cases.count)
    }

    @Test("reset resolves store settings: case over matrix over the .storekit file over the defaults")
    func resetResolvesSettings() {
        var matrix = ExampleMatrix.matrix(cases: [
            MatrixCase(id: "a", kind: "pending", account: "a", store: StoreSettings(askToBuy: true), steps: [Step(action: .launch)]),
            MatrixCase(id: "b", kind: "grace-period", account: "a", steps: [Step(action: .launch), Step(action: .observe)]),
        ])
        matrix.catalog.settings.billingGracePeriodEnabled = true
        matrix.store = StoreSettings(storefront: "FRA")
        let first = ResetParams(matrix: matrix, case: matrix.cases[0])
        #expect(first.store == ResetParams.Store(askToBuy: true, gracePeriodDays: 16, storefront: "FRA"))
        let second = ResetParams(matrix: matrix, case: matrix.cases[1])
        #expect(second.case == ResetParams.Case(id: "b", kind: "grace-period", index: 1, stepCount: 2))
        #expect(second.store.askToBuy == false)
        #expect(second.account.alias == "a")
    }

    @Test("environment names must be able to name a directory", arguments: [
        ("xcode", true), ("device-farm_2.1", true), ("", false), ("-x", false), ("a/b", false), ("é", false),
        (String(repeating: "a", count: 65), false),
    ])
    func environmentNames(name: String, valid: Bool) {
        #expect(InitializeResult(environment: name, actions: [String]()).hasValidEnvironmentName == valid)
    }
}
