/// How the runner delivers App Store Server Notifications (`--delivery`).
///
/// Apple: https://developer.apple.com/documentation/appstoreservernotifications/responding-to-app-store-server-notifications
/// ("For version 2 notifications, it retries five times, at 1, 12, 24, 48, and 72 hours after the previous
/// attempt"; "Retry notifications are available only in the production environment. In the sandbox environment,
/// the App Store server attempts to send the notification one time.")
public enum DeliveryMode: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// As the App Store does in production: a notification that is not answered 200–206 is sent again after 1,
    /// 12, 24, 48 and 72 hours, with the same `notificationUUID` and `signedDate`.
    case production
    /// As the sandbox does: one attempt.
    case sandbox
    /// Production retries, each step's notifications in a random order (`--seed`): Apple does not promise order,
    /// and a server must let the latest `signedDate` win.
    case shuffled
    /// Production retries, and every notification delivered a second time, at the start of the next step's
    /// deliveries (in a random place among them, `--seed`), as when the App Store did not get an answer it sent
    /// for: a server must ignore a `notificationUUID` it has handled.
    case duplicated

    public var description: String { rawValue }

    /// The delays between attempts, ms: five retries in production, none in the sandbox.
    public var retryDelays: [Int64] {
        switch self {
        case .sandbox: []
        case .production, .shuffled, .duplicated: [1, 12, 24, 48, 72].map { $0 * 3_600_000 }
        }
    }
}

/// A small deterministic random source (SplitMix64): the same seed gives the same order on every machine.
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    /// A seed for one case: the run's seed mixed with the case id (FNV-1a), so an order does not depend on
    /// which cases ran before or beside it.
    init(seed: UInt64, caseID: String) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in caseID.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        self.init(seed: seed ^ hash)
    }

    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
