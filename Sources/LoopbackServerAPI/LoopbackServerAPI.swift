import Foundation
import AppStoreAPI
import LoopbackHTTP
import SignedData

/// What the loopback App Store Server API says about itself in signed data and whom it lets in.
public struct ServerAPIConfiguration: Sendable {
    /// Who may call it.
    public var credentials: ServerAPICredentials
    /// `appAppleId` in responses and the test notification, when the matrix names one.
    public var appAppleId: Int64?
    /// `Sandbox`, `Production`, …: the `environment` of responses.
    public var environment: String
    /// Signs what it answers.
    public var pki: SimulatorPKI
    /// The wall clock in seconds since 1970, for bearer-token times.
    public var now: @Sendable () -> Int64

    public init(credentials: ServerAPICredentials, appAppleId: Int64?, environment: String, pki: SimulatorPKI,
                now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }) {
        self.credentials = credentials
        self.appAppleId = appAppleId
        self.environment = environment
        self.pki = pki
        self.now = now
    }
}

/// Delivers a test notification to the backend and returns the attempts (``ServerAPIResponder`` asks for one on
/// Request a Test Notification).
public typealias TestNotificationSender = @Sendable (_ signedPayload: String, _ signedDate: Int64) async -> [SendAttemptItem]

/// The App Store Server API on 127.0.0.1, answering from the run's stores with Apple's paths, shapes and error
/// codes. Point a backend's App Store Server API client at ``baseURL`` (docs/server-environment.md says how for
/// Apple's libraries, which hard-wire their base URLs).
/// Apple: https://developer.apple.com/documentation/appstoreserverapi
public final class LoopbackServerAPI: Sendable {
    let server: LoopbackHTTPServer
    /// The state it answers from.
    public let state: ServerAPIState

    /// `http://127.0.0.1:PORT`.
    public var baseURL: String { "http://127.0.0.1:\(server.port)" }

    /// The port it listens on.
    public var port: UInt16 { server.port }

    private init(server: LoopbackHTTPServer, state: ServerAPIState) {
        self.server = server
        self.state = state
    }

    /// Listens on 127.0.0.1 (a free port unless `port` names one) until ``stop()``.
    /// - Throws: ``HTTPWireFailure`` when the port cannot be bound.
    public static func start(_ configuration: ServerAPIConfiguration, state: ServerAPIState, port: UInt16 = 0,
                             sendTest: @escaping TestNotificationSender) throws(HTTPWireFailure) -> LoopbackServerAPI {
        let responder = ServerAPIResponder(configuration: configuration, state: state, sendTest: sendTest)
        let server = try LoopbackHTTPServer.start(port: port, limits: HTTPLimits(headerBytes: 16 << 10, bodyBytes: 64 << 10, timeout: .seconds(30))) {
            responder.respond(to: $0)
        }
        return LoopbackServerAPI(server: server, state: state)
    }

    /// Stops listening.
    public func stop() {
        server.stop()
    }
}
