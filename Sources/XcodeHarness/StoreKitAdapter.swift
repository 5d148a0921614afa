import HarnessCore
import MatrixEngine
import MatrixModel

/// An environment whose cases are ``StoreKitCaseSession``s: StoreKit Testing in Xcode (`xcode`), or in tests the
/// same session logic over the look-alike.
public struct StoreKitAdapter: EnvironmentAdapter {
    public let description: EnvironmentDescription
    let makeSession: @Sendable (MatrixCase, Matrix) async throws -> StoreKitCaseSession

    /// - Parameter makeSession: starts a case on fresh state: a reset test session and a fresh app.
    public init(_ description: EnvironmentDescription, makeSession: @escaping @Sendable (MatrixCase, Matrix) async throws -> StoreKitCaseSession) {
        self.description = description
        self.makeSession = makeSession
    }

    public func startCase(_ matrixCase: MatrixCase, of matrix: Matrix) async throws -> any CaseSession {
        try await makeSession(matrixCase, matrix)
    }

    /// A store that keeps its own state between runs (`SKTestSession`) is not rebuilt by replaying steps.
    public var replaysOnResume: Bool { false }
}
