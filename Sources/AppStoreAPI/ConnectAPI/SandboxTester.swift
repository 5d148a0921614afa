/// A Sandbox Apple Account of the team, as App Store Connect lists it.
///
/// ``acAccountName`` is the account's e-mail address: show it on a terminal only, never write it to a file.
/// ``description`` leaves it out.
///
/// Apple: https://developer.apple.com/documentation/appstoreconnectapi/sandboxtesterv2
public struct SandboxTester: Sendable, Hashable, CustomStringConvertible {
    /// The tester's App Store Connect id (a UUID).
    public var id: String
    /// First name.
    public var firstName: String?
    /// Last name.
    public var lastName: String?
    /// The Sandbox Apple Account's e-mail address. Personal data: never write it to a file.
    public var acAccountName: String?
    /// The App Store territory (ISO 3166-1 alpha-3, e.g. `USA`).
    public var territory: String?
    /// Whether the account can use Apple Pay.
    public var applePayCompatible: Bool?
    /// Whether purchases are interrupted (the customer must agree to terms first).
    public var interruptPurchases: Bool?
    /// How fast a one-month subscription renews.
    public var subscriptionRenewalRate: SandboxRenewalRate?

    /// Creates a tester.
    public init(id: String, firstName: String? = nil, lastName: String? = nil, acAccountName: String? = nil, territory: String? = nil,
                applePayCompatible: Bool? = nil, interruptPurchases: Bool? = nil, subscriptionRenewalRate: SandboxRenewalRate? = nil) {
        self.id = id
        self.firstName = firstName
        self.lastName = lastName
        self.acAccountName = acAccountName
        self.territory = territory
        self.applePayCompatible = applePayCompatible
        self.interruptPurchases = interruptPurchases
        self.subscriptionRenewalRate = subscriptionRenewalRate
    }

    /// `SandboxTester(id, territory, renewal rate, interrupt purchases)`, without the e-mail address or names.
    public var description: String {
        var parts = [id]
        if let territory { parts.append("territory \(territory)") }
        if let subscriptionRenewalRate { parts.append("renewal \(subscriptionRenewalRate.shortName ?? subscriptionRenewalRate.rawValue)") }
        if let interruptPurchases { parts.append("interrupt purchases \(interruptPurchases ? "on" : "off")") }
        return "SandboxTester(" + parts.joined(separator: ", ") + ")"
    }
}

/// How often a one-month auto-renewable subscription renews for a Sandbox Apple Account.
///
/// Raw values are App Store Connect's (`MONTHLY_RENEWAL_EVERY_FIVE_MINUTES`…); values Apple adds later are kept.
///
/// Apple: https://developer.apple.com/documentation/appstoreconnectapi/sandboxtesterv2/attributes-data.dictionary
public struct SandboxRenewalRate: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// App Store Connect's value.
    public var rawValue: String

    /// Wraps a value.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Every 3 minutes.
    public static let everyThreeMinutes = SandboxRenewalRate(rawValue: "MONTHLY_RENEWAL_EVERY_THREE_MINUTES")
    /// Every 5 minutes (the default).
    public static let everyFiveMinutes = SandboxRenewalRate(rawValue: "MONTHLY_RENEWAL_EVERY_FIVE_MINUTES")
    /// Every 15 minutes.
    public static let everyFifteenMinutes = SandboxRenewalRate(rawValue: "MONTHLY_RENEWAL_EVERY_FIFTEEN_MINUTES")
    /// Every 30 minutes.
    public static let everyThirtyMinutes = SandboxRenewalRate(rawValue: "MONTHLY_RENEWAL_EVERY_THIRTY_MINUTES")
    /// Every hour.
    public static let everyHour = SandboxRenewalRate(rawValue: "MONTHLY_RENEWAL_EVERY_ONE_HOUR")

    /// The known rates, fastest first.
    public static let known: [SandboxRenewalRate] = [.everyThreeMinutes, .everyFiveMinutes, .everyFifteenMinutes, .everyThirtyMinutes, .everyHour]

    /// Minutes per subscription month, for the known rates.
    public var minutesPerMonth: Int? {
        switch self {
        case .everyThreeMinutes: 3
        case .everyFiveMinutes: 5
        case .everyFifteenMinutes: 15
        case .everyThirtyMinutes: 30
        case .everyHour: 60
        default: nil
        }
    }

    /// `3m`, `5m`, `15m`, `30m`, `1h` for the known rates (the `--renewal-rate` values).
    public var shortName: String? {
        minutesPerMonth.map { $0 == 60 ? "1h" : "\($0)m" }
    }

    /// The rate for `3m`, `5m`, `15m`, `30m`, `1h` (also `60m`), or a raw value such as
    /// `MONTHLY_RENEWAL_EVERY_FIVE_MINUTES`; `nil` otherwise.
    public init?(shortName: String) {
        let text = shortName.trimmingCharacters(in: .whitespaces)
        if let rate = Self.known.first(where: { $0.rawValue == text.uppercased() }) {
            self = rate
            return
        }
        let minutes: Int? = switch text.lowercased() {
        case "1h", "60m": 60
        case let value where value.hasSuffix("m"): Int(value.dropLast())
        default: nil
        }
        guard let minutes, let rate = Self.known.first(where: { $0.minutesPerMonth == minutes }) else { return nil }
        self = rate
    }

    /// ``shortName`` when known, else the raw value.
    public var description: String { shortName ?? rawValue }
}
