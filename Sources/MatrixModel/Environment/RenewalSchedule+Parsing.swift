extension RenewalSchedule {
    /// The text forms ``parse(_:storeKitTimeRate:)`` accepts, for usage and error messages.
    public static let acceptedForms = "real, xcode, xcode:<SKTestSession.TimeRate raw value>, sandbox, "
        + "sandbox:<3|5|15|30|60> or testflight"

    /// Parses the text form without a `.storekit` file: `xcode` alone means Xcode's default, `realTime`.
    ///
    /// Returns `nil` where ``parse(_:storeKitTimeRate:)`` returns a ``ScheduleError``.
    public init?(_ text: String) {
        guard case .success(let schedule) = Self.parse(text, storeKitTimeRate: nil) else { return nil }
        self = schedule
    }

    /// Parses the text form of a schedule (`--clock`).
    ///
    /// - `real`: Production.
    /// - `xcode:<n>`: StoreKit Testing in Xcode at the `SKTestSession.TimeRate` whose raw value is `n`.
    /// - `xcode`: at `storeKitTimeRate`, the `.storekit` file's `_timeRate`; `realTime` when the file sets none
    ///   or there is no file, as `SKTestSession.timeRate` defaults to `realTime`.
    ///   Apple: https://developer.apple.com/documentation/storekittest/sktestsession/timerate-swift.property
    /// - `sandbox:<n>`: Sandbox at the tester's renewal rate, `n` one of 3, 5, 15, 30, 60 minutes per monthly
    ///   renewal (also written `5m`, `1h`, as for `matrix sandbox set --renewal-rate`); `sandbox` alone is App
    ///   Store Connect's default, 5.
    /// - `testflight`: TestFlight.
    ///
    /// Keywords are case-insensitive; ``description`` gives the canonical form back.
    /// - Returns: the schedule, or a ``ScheduleError`` whose message lists the accepted values.
    public static func parse(_ text: String, storeKitTimeRate: Int?) -> Result<RenewalSchedule, ScheduleError> {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let keyword = parts[0].lowercased()
        let argument = parts.count > 1 ? String(parts[1]) : nil
        switch (keyword, argument) {
        case ("real", nil):
            return .success(.real)
        case ("testflight", nil):
            return .success(.testFlight)
        case ("xcode", nil):
            let raw = storeKitTimeRate ?? TimeRate.realTime.rawValue
            guard let rate = TimeRate(rawValue: raw) else {
                return .failure(ScheduleError(.unknownStoreKitTimeRate, text: text, message:
                    "the .storekit file's _timeRate \(raw) is not an SKTestSession.TimeRate raw value (\(timeRateList)); "
                    + "choose the rate in Xcode's StoreKit configuration editor or write xcode:<raw value>"))
            }
            return .success(.xcode(rate))
        case ("xcode", let argument?):
            guard let raw = number(argument), let rate = TimeRate(rawValue: raw) else {
                return .failure(ScheduleError(.unknownTimeRate, text: text, message:
                    "\"\(text)\" does not name an SKTestSession.TimeRate: write xcode:<raw value> with one of "
                    + "\(timeRateList), e.g. xcode:13 for monthlyRenewalEveryFiveMinutes"))
            }
            return .success(.xcode(rate))
        case ("sandbox", nil):
            return .success(.sandbox(.default))
        case ("sandbox", let argument?):
            guard let minutes = sandboxMinutes(argument), let rate = SandboxRenewalRate(rawValue: minutes) else {
                return .failure(ScheduleError(.unsupportedSandboxRate, text: text, message:
                    "\"\(text)\" is not a Sandbox subscription renewal rate: write sandbox:<minutes> with minutes one of "
                    + "3, 5, 15, 30, 60 (a monthly renewal every that many minutes, as App Store Connect offers; 5 is the default)"))
            }
            return .success(.sandbox(rate))
        case ("real", _?), ("testflight", _?):
            return .failure(ScheduleError(.unknownEnvironment, text: text, message:
                "\"\(text)\": \(keyword) takes no rate; use \(acceptedForms)"))
        default:
            return .failure(ScheduleError(.unknownEnvironment, text: text, message:
                "unknown clock \"\(text)\"; use \(acceptedForms)"))
        }
    }

    /// Every raw value, with the deprecated ones marked, for messages.
    static var timeRateList: String {
        TimeRate.allCases.map { "\($0.rawValue)\($0.isDeprecated ? " (deprecated)" : "")" }.joined(separator: ", ")
    }

    /// The minutes of `sandbox:<minutes>`: a number, or a number of minutes with `m` or `1h`, as `matrix sandbox
    /// set --renewal-rate` writes them (`5m`, `1h`).
    static func sandboxMinutes(_ text: String) -> Int? {
        let lowercased = text.lowercased()
        if lowercased == "1h" { return 60 }
        return number(lowercased.hasSuffix("m") ? String(lowercased.dropLast()) : lowercased)
    }

    /// A non-negative decimal number of at most 9 digits, or `nil`.
    static func number(_ text: String) -> Int? {
        guard !text.isEmpty, text.count <= 9, text.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }) else { return nil }
        return Int(text)
    }
}

/// A schedule's text form that is not one of ``RenewalSchedule/acceptedForms``.
public struct ScheduleError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong; compare with the static values, new ones may be added.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// Not `real`, `xcode…`, `sandbox…` or `testflight`.
        public static let unknownEnvironment = Code(rawValue: "unknown-environment")
        /// `xcode:<n>` where `n` is not an `SKTestSession.TimeRate` raw value.
        public static let unknownTimeRate = Code(rawValue: "unknown-time-rate")
        /// `xcode` where the `.storekit` file's `_timeRate` is not an `SKTestSession.TimeRate` raw value.
        public static let unknownStoreKitTimeRate = Code(rawValue: "unknown-storekit-time-rate")
        /// `sandbox:<n>` where `n` is not 3, 5, 15, 30 or 60.
        public static let unsupportedSandboxRate = Code(rawValue: "unsupported-sandbox-rate")
    }

    public var code: Code
    /// The text that was parsed.
    public var text: String
    /// What is wrong and the accepted values.
    public var message: String

    public init(_ code: Code, text: String, message: String) {
        self.code = code
        self.text = text
        self.message = message
    }

    public var description: String { message }
}
