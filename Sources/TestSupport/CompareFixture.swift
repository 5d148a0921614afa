import MatrixComparison
import MatrixModel

/// Evidence records and runs built in code, for comparing runs without files.
public enum CompareFixture {
    /// A matrix digest.
    public static let digest = String(repeating: "1a2b3c4d", count: 8)
    /// The digest of an edited matrix.
    public static let otherDigest = String(repeating: "9f8e7d6c", count: 8)
    /// The monthly subscription's product ID.
    public static let plus = ExampleMatrix.monthly

    /// One step's record in environment `environment`; `seq` is set by ``run(_:_:digest:status:)``.
    ///
    /// `access` and `renewals` make an observation; leave `access` `nil` for a step that observed nothing.
    public static func record(_ caseID: String, _ step: Int, _ verdict: Verdict, in environment: String = "local",
                              action: Action = .observe, product: String? = nil, count: Int? = nil,
                              kind: String? = nil, expected: Expectation? = nil, access: [String]? = nil, renewals: Int = 0,
                              reason: String? = nil, storeTime: Int64? = nil, modelledWallTimeMs: Int64? = nil,
                              clock: String? = nil) -> EvidenceRecord {
        let observed = access.map { Observation(access: $0, renewals: renewals, storeTime: storeTime) }
        return EvidenceRecord(
            run: "run-\(environment)", seq: 0, environment: environment, build: "1.4 (212)", device: "iPhone 16",
            os: "iOS 26.1", account: AccountRef(alias: "fresh", state: "no purchases"), case: caseID,
            kind: kind ?? String(caseID.split(separator: "/").first ?? "observe"), step: step,
            action: Step(action: action, product: product, count: count), product: product, expected: expected,
            observed: observed, verdict: verdict, reason: reason ?? (verdict == .pass ? nil : verdict.rawValue),
            wallStart: "2026-01-15T10:00:00.000Z", wallEnd: "2026-01-15T10:00:00.250Z", storeTime: storeTime,
            modelledWallTimeMs: modelledWallTimeMs, clock: clock)
    }

    /// A run of `records` (their `environment` is set to the run's), numbered 1… in the order given.
    public static func run(_ environment: String, _ records: [EvidenceRecord], digest: String = digest,
                           status: String = "complete") -> ComparedRun {
        let numbered = records.enumerated().map { index, record in
            var copy = record
            copy.seq = index + 1
            copy.environment = environment
            copy.run = "run-\(environment)"
            return copy
        }
        return ComparedRun(path: "reports/\(environment)/1.4-212/run-\(environment)", runId: "run-\(environment)",
                           environment: environment, build: "1.4 (212)", matrixName: "release", matrixSHA256: digest,
                           status: status, records: numbered)
    }

    /// The same step in several environments: `cells` maps an environment to its record's verdict, access and
    /// renewals; other fields are shared.
    public static func runs(_ caseID: String, step: Int = 0, action: Action = .observe,
                            _ cells: [(environment: String, verdict: Verdict, access: [String]?)]) -> [ComparedRun] {
        cells.map { cell in
            run(cell.environment, [record(caseID, step, cell.verdict, in: cell.environment, action: action, access: cell.access)])
        }
    }

    /// Four runs (local, exec, sandbox, testflight) with one difference of every classification, blocked steps
    /// after a difference, a case the later runs lack, a TestFlight run of another matrix version that was
    /// interrupted, a skip reason with characters that need escaping, and an exec run that recorded no clock.
    public static var everyClassification: [ComparedRun] {
        let environments = ["local", "exec", "sandbox", "testflight"]
        var records: [String: [EvidenceRecord]] = [:]
        func add(_ caseID: String, _ step: Int, action: Action = .observe, product: String? = nil, count: Int? = nil,
                 expected: Expectation? = nil, _ cells: [(Verdict, [String]?, Int, String?)]) {
            for (environment, cell) in zip(environments, cells) {
                records[environment, default: []].append(
                    record(caseID, step, cell.0, in: environment, action: action, product: product, count: count, expected: expected,
                           access: cell.1, renewals: cell.2, reason: cell.3))
            }
        }
        let pro = ExampleMatrix.pro
        let wrong = #"access: expected ["pro"], observed []"#
        add("fresh-purchase/pro", 0, action: .launch, [(.pass, [], 0, nil), (.pass, [], 0, nil), (.pass, [], 0, nil), (.pass, [], 0, nil)])
        add("fresh-purchase/pro", 1, action: .purchase, product: pro, expected: Expectation(access: ["pro", "season"]),
            [(.fail, ["pro"], 0, #"access: expected ["pro", "season"], observed ["pro"]"#),
             (.fail, ["pro"], 0, nil), (.fail, ["pro"], 0, nil), (.fail, ["pro"], 0, nil)])
        add("refund/pro", 0, action: .refund, product: pro, expected: Expectation(access: []),
            [(.pass, [], 0, nil), (.fail, ["pro"], 0, #"access: expected [], observed ["pro"]"#),
             (.fail, ["pro"], 0, nil), (.fail, ["pro"], 0, nil)])
        add("refund/pro", 1, action: .relaunch, [(.pass, [], 0, nil), (.blocked, nil, 0, nil), (.blocked, nil, 0, nil), (.blocked, nil, 0, nil)])
        add("refund/pro", 2, action: .observe, [(.pass, [], 0, nil), (.blocked, nil, 0, nil), (.blocked, nil, 0, nil), (.blocked, nil, 0, nil)])
        add("upgrade/premium", 0, action: .purchase, product: ExampleMatrix.yearly, expected: Expectation(access: ["premium"]),
            [(.pass, ["premium"], 0, nil), (.pass, ["premium"], 0, nil), (.fail, [], 0, #"access: expected ["premium"], observed []"#),
             (.fail, [], 0, nil)])
        add("restore/second-device", 0, action: .restore, expected: Expectation(access: ["pro"]),
            [(.pass, ["pro"], 0, nil), (.pass, ["pro"], 0, nil), (.pass, ["pro"], 0, nil), (.fail, [], 0, wrong)])
        add("renewal/plus-monthly", 0, action: .renew, product: plus, count: 13, expected: Expectation(access: ["plus"], renewals: 13),
            [(.pass, ["plus"], 13, nil), (.pass, ["plus"], 13, nil),
             (.fail, [], 12, #"access: expected ["plus"], observed []; renewals: expected 13, observed 12"#),
             (.fail, [], 6, #"access: expected ["plus"], observed []; renewals: expected 13, observed 6"#)])
        add("billing-retry/plus-monthly", 0, action: .failRenewal, product: plus,
            [(.pass, ["plus"], 0, nil), (.pass, ["plus"], 0, nil), (.pass, ["plus"], 0, nil),
             (.skipped, nil, 0, "TestFlight purchases cannot fail to renew: test billing retry with a Sandbox Apple Account | <see docs>")])
        add("grace-period/plus-monthly", 0, action: .advanceTime, product: plus,
            [(.pass, ["plus"], 0, nil), (.error, nil, 0, "the driver did not answer within 30 s"), (.pass, ["plus"], 0, nil),
             (.pass, ["plus"], 0, nil)])
        for environment in ["local", "exec"] {
            records[environment, default: []].append(record("offer/intro", 0, .pass, in: environment, action: .purchase, product: plus,
                                                            access: ["plus"]))
        }
        let clocks = ["local": "real", "sandbox": "sandbox:5", "testflight": "testflight"]
        return environments.map { environment in
            var compared = run(environment, records[environment] ?? [], digest: environment == "testflight" ? otherDigest : digest,
                               status: environment == "testflight" ? "interrupted" : "complete")
            compared.clock = clocks[environment]
            return compared
        }
    }
}
