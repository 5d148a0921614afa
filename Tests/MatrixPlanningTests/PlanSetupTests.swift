import Foundation
@testable import GuidedEnvironment
@testable import MatrixModel
@testable import MatrixPlanning
@testable import TestSupport
import Testing
import Threading

/// `matrix plan`: the starting state of each case as setup lines, shared accounts, and what the guided run shows.
@Suite("Plan setup")
struct PlanSetupTests {
    static let signIn = "Sandbox account a: sign in on the device (Settings > Developer > Sandbox Apple Account)"
    static let fresh = "delete the app and install the build again, so that the case starts without app data"

    func plan(_ cases: [MatrixCase], accounts: [Account] = [Account(alias: "a")], environment: EnvironmentKind = .sandbox,
              lanes: Int = 1) async -> RunPlan {
        await RunPlanner.plan(ExampleMatrix.matrix(accounts: accounts, cases: cases), matrixPath: "m.json", environment: environment,
                              accounts: lanes)
    }

    @Test("an account that owns products: sign in, clear its history, its renewal rate, buy each product first, a fresh install")
    func owningAccount() async {
        let owner = Account(alias: "a", owns: [ExampleMatrix.pro, ExampleMatrix.monthly])
        let planned = await plan([MatrixCase(id: "restore/owner", kind: "restore", account: "a", steps: [Step(action: .launch), Step(action: .restore)])],
                                 accounts: [owner])
        #expect(planned.cases[0].setup == [
            Self.signIn,
            "clear the purchase history first: matrix sandbox clear a",
            "renewal rate: matrix sandbox set a --renewal-rate 5m",
            "a must own com.example.storekitmatrix.pro: buy it first with a in the app and let the app finish the purchase",
            "a must own com.example.storekitmatrix.plus.monthly: buy it first with a in the app and let the app finish the purchase",
            Self.fresh,
        ])
        #expect(planned.cases[0].dedicated == nil && planned.cases[0].teardown.isEmpty)
        #expect(planned.text.contains("      setup: clear the purchase history first: matrix sandbox clear a\n"))
    }

    @Test("a Family Sharing case: both accounts cleared, the Sandbox Test Family, accounts of its own, the family restored after")
    func familySharing() async {
        let accounts = [Account(alias: "member", familyOrganizer: "organizer"), Account(alias: "organizer", owns: [ExampleMatrix.pro])]
        let family = MatrixCase(id: "family-sharing/pro", kind: "family-sharing", account: "member", steps: [
            Step(action: .launch, expect: Expectation(access: ["pro"])), Step(action: .revokeFamilySharing, product: ExampleMatrix.pro),
        ])
        let item = await plan([family], accounts: accounts).cases[0]
        #expect(item.accounts == ["member", "organizer"])
        #expect(item.dedicated == "a Sandbox Test Family (member, organizer)")
        #expect(item.setup == [
            "Sandbox accounts member, organizer: a device each, or sign in to one device in turn (Settings > Developer > Sandbox Apple Account)",
            "needs accounts of its own, shared with no other case: a Sandbox Test Family (member, organizer)",
            "clear the purchase history first: matrix sandbox clear member organizer",
            "member must be a member of organizer's Sandbox Test Family in App Store Connect",
            "organizer must own com.example.storekitmatrix.pro: buy it first with organizer in the app and let the app finish the purchase",
            Self.fresh,
        ])
        #expect(item.steps[1].instruction == "remove member from organizer's Sandbox Test Family in App Store Connect (Family Sharing ends)")
        #expect(item.teardown == ["add member back to organizer's Sandbox Test Family"])
    }

    @Test("a case that expects the introductory offer (offerType 1) or eligibility needs an account never subscribed in the group: it does not share its lane's account")
    func introductoryOffer() async {
        let offer = MatrixCase(id: "offer/intro", kind: "offer", account: "o", steps: [
            Step(action: .launch),
            Step(action: .purchase, product: ExampleMatrix.monthly, expect: Expectation(transaction: TransactionExpectation(offerType: 1))),
        ])
        let eligibility = MatrixCase(id: "offer/eligible", kind: "offer", account: "e", steps: [
            Step(action: .launch, expect: Expectation(eligibleForIntroOffer: [ExampleMatrix.groupName: true])),
        ])
        let other = MatrixCase(id: "fresh/pro", kind: "fresh-purchase", account: "a", steps: [Step(action: .purchase, product: ExampleMatrix.pro)])
        let planned = await plan([offer, other, eligibility], accounts: [Account(alias: "o"), Account(alias: "a"), Account(alias: "e")])
        #expect(planned.cases[0].dedicated == "a Sandbox Apple Account that has never subscribed in Membership, for its introductory "
            + "offer — clearing purchase history resets the account's In-App Purchase and subscription history, but Apple does not say "
            + "it restores introductory offer eligibility")
        #expect(planned.cases[1].dedicated == nil)
        #expect(planned.cases[2].dedicated == planned.cases[0].dedicated)
        #expect(planned.lanes[0].sharedAliases == ["a"])
        #expect(planned.text.contains("  offer/intro has its own: o — a Sandbox Apple Account that has never subscribed in Membership"))
    }

    @Test("a purchase that expects the introductory offer's price (a free trial's 0) needs an account never subscribed in the group; the regular price does not")
    func introductoryPrice() async throws {
        let trial = MatrixCase(id: "fresh-purchase/monthly", kind: "fresh-purchase", account: "t", steps: [
            Step(action: .launch),
            Step(action: .purchase, product: ExampleMatrix.monthly, expect: Expectation(transaction: TransactionExpectation(price: 0))),
        ])
        let regular = MatrixCase(id: "fresh-purchase/yearly", kind: "fresh-purchase", account: "r", steps: [
            Step(action: .launch),
            Step(action: .purchase, product: ExampleMatrix.yearly, expect: Expectation(transaction: TransactionExpectation(price: 39_990))),
        ])
        let planned = await plan([trial, regular], accounts: [Account(alias: "t"), Account(alias: "r")])
        #expect(planned.cases[0].dedicated?.hasPrefix("a Sandbox Apple Account that has never subscribed in Membership, for its introductory offer") == true,
                "\(planned.cases[0].setup)")
        #expect(planned.cases[1].dedicated == nil)
        let monthly = try #require(ExampleMatrix.catalog.product(ExampleMatrix.monthly))
        #expect(CaseSetup.isIntroductoryPrice(0, of: monthly))
        #expect(!CaseSetup.isIntroductoryPrice(4_990, of: monthly) && !CaseSetup.isIntroductoryPrice(nil, of: monthly))
    }

    @Test("an interrupted purchase turns Interrupt Purchases on before and off after; a storefront the matrix chose is set per account")
    func perAccountSettings() async {
        let interrupted = MatrixCase(id: "interrupted/pro", kind: "interrupted", account: "a", store: StoreSettings(storefront: "FRA"), steps: [
            Step(action: .launch), Step(action: .purchase, product: ExampleMatrix.pro, outcome: .interrupted), Step(action: .resolveIssue, product: ExampleMatrix.pro),
        ])
        let item = await plan([interrupted]).cases[0]
        #expect(item.setup == [
            Self.signIn,
            "clear the purchase history first: matrix sandbox clear a",
            "App Store country or region of a: FRA (edit the Sandbox account in App Store Connect, then sign in again)",
            "interrupted purchases: matrix sandbox set a --interrupt-purchases on",
            Self.fresh,
        ])
        #expect(item.teardown == ["matrix sandbox set a --interrupt-purchases off"])
    }

    @Test("TestFlight: the tester's own Apple Account, which cannot be cleared, so every case has accounts of its own")
    func testFlightAccounts() async {
        let item = await plan([MatrixCase(id: "fresh/pro", kind: "fresh-purchase", account: "a",
                                          steps: [Step(action: .launch), Step(action: .purchase, product: ExampleMatrix.pro)])], environment: .testflight).cases[0]
        #expect(item.setup == [
            "Apple Account a: the tester's own, signed in to the App Store; TestFlight uses Sandbox with it",
            "needs accounts of its own, shared with no other case: an Apple Account that has not bought this app's products in "
                + "TestFlight — a TestFlight purchase history cannot be cleared (Clear Purchase History resets Sandbox Apple Accounts only)",
            "delete the app and install it again from TestFlight, so that the case starts without app data",
        ])
    }

    @Test("Xcode: the Transaction Manager is cleared instead of an account; Ask to Buy is a StoreKit configuration setting")
    func xcodeSetup() async {
        let pending = MatrixCase(id: "pending/pro", kind: "pending", account: "a", store: StoreSettings(askToBuy: true), steps: [
            Step(action: .launch), Step(action: .purchase, product: ExampleMatrix.pro, outcome: .pending), Step(action: .approveAskToBuy, product: ExampleMatrix.pro),
        ])
        let item = await plan([pending], environment: .xcode).cases[0]
        #expect(item.setup == [
            "StoreKit Testing in Xcode: delete every transaction first (Transaction Manager, or SKTestSession.clearTransactions())",
            "enable Ask to Buy in the StoreKit configuration (askToBuy)",
            "delete the app from the device or simulator, so that the case starts without app data",
        ])
        #expect(item.steps.allSatisfy { $0.skipped == nil })
    }

    @Test("a guided run shows the same setup before a case's first step")
    func guidedRunShowsSetup() async throws {
        let owner = Account(alias: "a", owns: [ExampleMatrix.pro])
        let matrixCase = MatrixCase(id: "restore/owner", kind: "restore", account: "a", steps: [Step(action: .launch, expect: Expectation(access: ["pro"]))])
        let matrix = ExampleMatrix.matrix(accounts: [owner], cases: [matrixCase])
        let shown = Shown()
        let prompter = try ScriptedPrompter(jsonLines: Data(#"{"case": "restore/owner", "step": 0, "access": ["pro"]}"#.utf8),
                                            path: "answers.jsonl", log: { shown.append($0) })
        let adapter = GuidedAdapter(environment: .sandbox, schedule: .sandbox(.default), build: "1", device: "d", os: "o", prompter: prompter)
        let session = try await adapter.startCase(matrixCase, of: matrix)
        _ = try await session.perform(matrixCase.steps[0], index: 0)
        let planned = await RunPlanner.plan(matrix, matrixPath: "m.json", environment: .sandbox)
        let expected = "[restore/owner] before the first step:\n" + planned.cases[0].setup.map { "  - \($0)" }.joined(separator: "\n")
        #expect(shown.lines.first == expected)
        #expect(expected.contains("  - a must own com.example.storekitmatrix.pro: buy it first with a in the app"))
    }
}

/// Lines a scripted prompter logged.
final class Shown: Sendable {
    private let stored = Locked<[String]>([])

    func append(_ line: String) { stored.withLock { $0.append(line) } }
    var lines: [String] { stored.withLock { $0 } }
}
