import AppHarnessDriver
import DriverKit
import LocalEnvironment
import MatrixModel
import ReferenceApp
import TestSupport
import Testing

/// `matrix driver local`: the embedded environment behind the driver protocol.
@Suite("Local driver")
struct LocalDriverTests {
    /// The release matrix as a driver receives it, with `app.appAppleId` set or not.
    func params(appAppleId: Int64?) throws -> InitializeParams {
        let directory = Fixtures.packageDirectory.appendingPathComponent("matrices")
        var source = try String(contentsOf: directory.appendingPathComponent("release.json"), encoding: .utf8)
        if let appAppleId {
            source = source.replacingOccurrences(of: #""bundleId": "com.example.storekitmatrix""#,
                                                 with: #""bundleId": "com.example.storekitmatrix", "appAppleId": \#(appAppleId)"#)
        }
        let catalog = try String(contentsOf: directory.appendingPathComponent("Products.storekit"), encoding: .utf8)
        let loaded = MatrixLoader.load(Array(source.utf8), file: "release.json") { _ in .contents(Array(catalog.utf8), displayPath: "Products.storekit") }
        let matrix = try #require(loaded.matrix, "\(loaded.diagnostics.map(\.rendered))")
        #expect(matrix.app.appAppleId == appAppleId)
        return InitializeParams(matrix: matrix, matrixPath: "release.json", matrixSource: source, catalogSource: catalog,
                                runner: .init(name: "matrix", version: "test"))
    }

    // Apple: https://developer.apple.com/documentation/appstoreservernotifications/data (appAppleId, Production)
    @Test("Production signed data needs the matrix's app.appAppleId, as matrix run requires")
    func productionNeedsAppAppleId() async throws {
        let driver = LocalDriver(signedEnvironment: .production, version: "test", app: .reference())
        let withoutId = try params(appAppleId: nil)
        await #expect {
            _ = try await driver.initialize(withoutId)
        } throws: { error in
            String(describing: error).contains("--signed-environment Production needs app.appAppleId in the matrix")
        }
        let result = try await LocalDriver(signedEnvironment: .production, version: "test", app: .reference()).initialize(try params(appAppleId: 1_234_567_890))
        #expect(result.environment == "local-driver")
        _ = try await LocalDriver(signedEnvironment: .sandbox, version: "test", app: .reference()).initialize(withoutId)
    }
}
