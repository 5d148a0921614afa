import Foundation
import MatrixEngine
import MatrixModel

/// `sandbox` and `testflight`: a person runs the user's build on a device with Sandbox Apple Accounts; the
/// runner tells them what to do step by step, times the accelerated renewals, and records what they observe.
///
/// Apple: https://developer.apple.com/documentation/storekit/testing-in-app-purchases-with-sandbox,
/// https://developer.apple.com/help/app-store-connect/test-a-beta-version/testing-subscriptions-and-in-app-purchases-in-testflight
public struct GuidedAdapter: EnvironmentAdapter {
    /// `sandbox` or `testflight`.
    public var environment: EnvironmentKind
    /// The renewal schedule of the tester's accounts: `sandbox:<rate>` or `testflight`.
    public var schedule: RenewalSchedule
    public var build: String
    public var device: String
    public var os: String
    /// Sandbox Apple Account identifiers by alias, shown to the tester only; evidence keeps a salted hash.
    public var accounts: [String: String]
    let prompter: any Prompter
    /// Cross-checks each step with the App Store Server API, when credentials were given.
    let serverCheck: (any ServerCheck)?

    public init(environment: EnvironmentKind, schedule: RenewalSchedule, build: String, device: String, os: String,
                accounts: [String: String] = [:], prompter: any Prompter, serverCheck: (any ServerCheck)? = nil) {
        self.environment = environment
        self.schedule = schedule
        self.build = build
        self.device = device
        self.os = os
        self.accounts = accounts
        self.prompter = prompter
        self.serverCheck = serverCheck
    }

    public var description: EnvironmentDescription {
        EnvironmentDescription(environment, device: device, os: os, build: build, clock: schedule.description)
    }

    /// The world does not rewind: a resumed case continues at its next step.
    public var replaysOnResume: Bool { false }

    public func startCase(_ matrixCase: MatrixCase, of matrix: Matrix) async throws -> any CaseSession {
        GuidedSession(adapter: self, matrix: matrix, matrixCase: matrixCase)
    }
}
