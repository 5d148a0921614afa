import Foundation
import MatrixJSON
import MatrixModel

/// A small hand-made run covering every verdict: pass, fail, error, skipped and blocked.
public enum SampleRun {
    public static let runID = "20260115T100000Z-golden"
    public static let context = RunContext(runID: runID, environment: "sandbox", build: "1.4 (212)", device: "iPhone 16",
                                    os: "iOS 26.1")
    /// 2026-01-01T00:00:00Z in ms.
    public static let storeStart: Int64 = 1_767_225_600_000
    public static let hour: Int64 = 3_600_000
    public static let day: Int64 = 86_400_000
    /// 2026-01-15T10:00:00Z.
    public static let wallStart = Date(timeIntervalSince1970: 1_768_471_200)
    public static let wallEnd = Date(timeIntervalSince1970: 1_768_471_200 + 95)
    public static let matrixContents = Data(#"{"schemaVersion":1,"name":"release"}"#.utf8)

    public static let fresh = AccountRef(alias: "fresh", state: "eligible for offers, no purchases")
    public static let owner = AccountRef(alias: "owner", state: "owns com.example.myapp.pro")
    public static let member = AccountRef(alias: "member", state: "family member of organizer",
                                   hash: "177eae5f46ea023d979f7bc1b80b43212a997784303ec274760bc8e818f3c76e")

    public static let pro = "com.example.myapp.pro"
    public static let vip = "com.example.myapp.vip.monthly"

    /// The error step's reason: markup characters, a table pipe and an escape character.
    public static let errorReason = "the driver said <timeout> & closed | code \u{1B}[31m after 30 s"

    public static var records: [EvidenceRecord] {
        var seq = 0
        var second = 0
        func record(_ caseID: String, _ kind: String, _ account: AccountRef, _ step: Int, _ action: Step, expect: Expectation?,
                    observed: Observation?, _ verdict: Verdict, reason: String? = nil) -> EvidenceRecord {
            seq += 1
            let start = Timestamp.iso8601(wallStart.addingTimeInterval(Double(second)))
            let end = Timestamp.iso8601(wallStart.addingTimeInterval(Double(second) + 0.25))
            second += 1
            return EvidenceRecord(run: runID, seq: seq, environment: context.environment, build: context.build,
                                  device: context.device, os: context.os, account: account, case: caseID, kind: kind,
                                  step: step, action: action, product: action.product, expected: expect, observed: observed,
                                  verdict: verdict, reason: reason, wallStart: start, wallEnd: end,
                                  storeTime: observed?.storeTime)
        }
        func seen(_ access: [String], at time: Int64, result: String? = nil, ids: [String] = [], renewals: Int = 0,
                  status: [String: String] = [:]) -> Observation {
            Observation(access: access, entitlements: access.isEmpty ? [] : [access == ["vip"] ? vip : pro], result: result,
                        subscriptionStatus: status, renewals: renewals, transactionIds: ids, storeTime: time)
        }
        let t0 = storeStart
        return [
            record("fresh-purchase/pro", "fresh-purchase", fresh, 0, Step(action: .launch), expect: Expectation(access: []),
                   observed: seen([], at: t0), .pass),
            record("fresh-purchase/pro", "fresh-purchase", fresh, 1, Step(action: .purchase, product: pro),
                   expect: Expectation(access: ["pro"], result: "success"),
                   observed: seen(["pro"], at: t0, result: "success", ids: ["2000000001"]), .pass),
            record("fresh-purchase/pro", "fresh-purchase", fresh, 2, Step(action: .relaunch), expect: Expectation(access: ["pro"]),
                   observed: seen(["pro"], at: t0), .pass),

            record("refund/pro", "refund", owner, 0, Step(action: .launch), expect: Expectation(access: ["pro"]),
                   observed: seen(["pro"], at: t0), .pass),
            record("refund/pro", "refund", owner, 1, Step(action: .refund, product: pro),
                   expect: Expectation(access: [], notifications: ["REFUND"]),
                   observed: seen(["pro"], at: t0 + hour, ids: ["2000000002"]), .fail,
                   reason: #"access: expected [], observed ["pro"]; notifications: expected ["REFUND"], observed []"#),
            record("refund/pro", "refund", owner, 2, Step(action: .relaunch), expect: Expectation(access: []), observed: nil,
                   .blocked, reason: "blocked: step 1 (refund) failed"),

            record("renewal/vip", "renewal", fresh, 0, Step(action: .purchase, product: vip), expect: Expectation(access: ["vip"]),
                   observed: seen(["vip"], at: t0, result: "success", ids: ["2000000003"],
                                  status: ["VIP": "subscribed"]), .pass),
            record("renewal/vip", "renewal", fresh, 1, Step(action: .renew, product: vip, count: 2),
                   expect: Expectation(access: ["vip"], renewals: 2),
                   observed: seen(["vip"], at: t0 + 59 * day, ids: ["2000000004", "2000000005"], renewals: 2,
                                  status: ["VIP": "subscribed"]), .pass),
            record("renewal/vip", "renewal", fresh, 2, Step(action: .advanceTime, by: ISO8601Duration(months: 1)),
                   expect: Expectation(access: [], subscriptionStatus: ["VIP": "expired"]), observed: nil, .error,
                   reason: errorReason),
            record("renewal/vip", "renewal", fresh, 3, Step(action: .observe), expect: Expectation(access: []), observed: nil,
                   .blocked, reason: "blocked: step 2 (advanceTime) errored"),

            record("family-sharing/pro", "family-sharing", member, 0, Step(action: .launch), expect: Expectation(access: []),
                   observed: seen([], at: t0), .pass),
            record("family-sharing/pro", "family-sharing", member, 1,
                   Step(action: .purchaseOutsideApp, product: pro, account: "organizer"), expect: Expectation(access: ["pro"]),
                   observed: nil, .skipped, reason: "Family Sharing purchases cannot be made in the sandbox environment"),
        ]
    }
}
