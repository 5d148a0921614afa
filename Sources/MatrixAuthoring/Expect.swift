import MatrixJSON

/// What a generated step expects; only the fields set are written, in the order people read them.
struct Expect {
    var access: [String]?
    var result: String?
    var entitlements: [String]?
    var subscriptionStatus: [(String, String)] = []
    var balance: [(String, Int)] = []
    var notifications: [String]?
    var renewals: Int?
    var transaction: [(String, JSONText)] = []
    var renewalInfo: [(String, JSONText)] = []
    var eligibleForIntroOffer: [(String, Bool)] = []
    var displayPrice: [(String, String)] = []
    var introductoryOffer: [(String, String)] = []

    init(access: [String]? = nil, result: String? = nil, entitlements: [String]? = nil, notifications: [String]? = nil,
         renewals: Int? = nil) {
        self.access = access
        self.result = result
        self.entitlements = entitlements
        self.notifications = notifications
        self.renewals = renewals
    }

    var json: JSONText {
        var members: [(String, JSONText)] = []
        if let access { members.append(("access", .array(access.sorted().map(JSONText.string)))) }
        if let result { members.append(("result", .string(result))) }
        if let entitlements { members.append(("entitlements", .array(entitlements.sorted().map(JSONText.string)))) }
        if !subscriptionStatus.isEmpty { members.append(("subscriptionStatus", .object(subscriptionStatus.map { ($0.0, .string($0.1)) }))) }
        if !balance.isEmpty { members.append(("balance", .object(balance.map { ($0.0, .int($0.1)) }))) }
        if let notifications { members.append(("notifications", .array(notifications.map(JSONText.string)))) }
        if let renewals { members.append(("renewals", .int(renewals))) }
        if !transaction.isEmpty { members.append(("transaction", .object(transaction))) }
        if !renewalInfo.isEmpty { members.append(("renewalInfo", .object(renewalInfo))) }
        if !eligibleForIntroOffer.isEmpty {
            members.append(("eligibleForIntroOffer", .object(eligibleForIntroOffer.map { ($0.0, .bool($0.1)) })))
        }
        if !introductoryOffer.isEmpty { members.append(("introductoryOffer", .object(introductoryOffer.map { ($0.0, .string($0.1)) }))) }
        if !displayPrice.isEmpty { members.append(("displayPrice", .object(displayPrice.map { ($0.0, .string($0.1)) }))) }
        return .object(members)
    }
}

extension Expect {
    /// This expectation with more fields set by `change`.
    func with(_ change: (inout Expect) -> Void) -> Expect {
        var copy = self
        change(&copy)
        return copy
    }
}
