import Foundation
import MatrixJSON

/// Reads Xcode StoreKit configuration files (`.storekit`, JSON) of format versions 1.0 to 6.x.
///
/// Lenient where the format varied between Xcode versions (`introductoryOffer` vs `introductoryOffers`,
/// `null` reference names, missing `identifier` or `nonRenewingSubscriptions`, absent settings), strict where
/// a product could not be used (no product ID, an unknown type, a subscription without a period).
/// Unknown keys are ignored silently: Xcode adds keys with every release.
public enum StoreKitConfigurationReader {
    /// Reads a configuration from bytes.
    ///
    /// - Parameters:
    ///   - bytes: the file's content, UTF-8 JSON.
    ///   - file: the path used in diagnostics.
    /// - Returns: the configuration (when no error was found) and every diagnostic.
    public static func read(_ bytes: some Collection<UInt8>, file: String?) -> (StoreKitConfiguration?, [Diagnostic]) {
        let document = JSONReader.read(bytes, file: file)
        guard let root = document.value else { return (nil, document.diagnostics) }
        let sink = DiagnosticCollector(file: file)
        sink.append(contentsOf: document.diagnostics)
        JSONTextLimit.check(root, sink)
        if sink.hasErrors {
            sink.finish()
            return (nil, sink.diagnostics)
        }
        let configuration = decode(JSONField(root, pointer: ""), sink)
        sink.finish()
        return (sink.hasErrors ? nil : configuration, sink.diagnostics)
    }

    /// Decodes a configuration object; `requireVersion` is false for product lists written inline in a matrix.
    static func decode(_ root: JSONField, _ sink: DiagnosticCollector, requireVersion: Bool = true) -> StoreKitConfiguration? {
        guard let object = root.value.objectValue else {
            sink.error(.notStoreKitConfiguration, "not a StoreKit configuration: expected a JSON object, found \(root.value.typeDescription)",
                       pointer: root.pointer, at: root.location, hint: "a .storekit file is written by Xcode (File > New > File > StoreKit Configuration File)")
            return nil
        }
        let looksLikeConfiguration = (object["version"] != nil || !requireVersion)
            && (object["products"] != nil || object["subscriptionGroups"] != nil || object["nonRenewingSubscriptions"] != nil)
        guard looksLikeConfiguration else {
            let expected = (requireVersion ? "\"version\" and " : "") + "\"products\" or \"subscriptionGroups\""
            sink.error(.notStoreKitConfiguration, "not a StoreKit configuration: expected \(expected)",
                       pointer: root.pointer, at: root.location,
                       hint: "a .storekit file is written by Xcode (File > New > File > StoreKit Configuration File)")
            return nil
        }
        var fields = ObjectFields(root, sink)
        var configuration = StoreKitConfiguration()
        if let version = requireVersion ? fields.required("version", code: .invalidCatalogEntry) : fields.optional("version") {
            configuration.formatVersion = decodeVersion(version, sink)
        }
        configuration.identifier = fields.optional("identifier")?.value.stringValue
        var seenIDs: [String: JSONField] = [:]
        func add(_ product: CatalogProduct?, _ field: JSONField) {
            guard let product else { return }
            if seenIDs[product.productID] != nil {
                sink.error(.duplicateProductID, "product ID \"\(product.productID)\" is defined twice", pointer: field.pointer, at: field.location)
                return
            }
            seenIDs[product.productID] = field
            configuration.products.append(product)
        }
        for key in ["products", "nonRenewingSubscriptions"] {
            guard let list = fields.optional(key)?.array(sink) else { continue }
            for element in list { add(decodeProduct(element, groupID: nil, sink), element) }
        }
        if let groups = fields.optional("subscriptionGroups")?.array(sink) {
            for groupField in groups {
                var group = ObjectFields(groupField, sink)
                guard group.isObject else { continue }
                let id = group.required("id", code: .invalidCatalogEntry)?.string(sink) ?? ""
                let name = group.optional("name")?.value.stringValue.map(Self.trimmed).flatMap { $0.isEmpty ? nil : $0 } ?? id
                var productIDs: [String] = []
                for subscription in group.optional("subscriptions")?.array(sink) ?? [] {
                    let product = decodeProduct(subscription, groupID: id, sink)
                    if let product { productIDs.append(product.productID) }
                    add(product, subscription)
                }
                configuration.subscriptionGroups.append(SubscriptionGroup(id: id, name: name, productIDs: productIDs))
            }
        }
        if let settings = fields.optional("settings") {
            configuration.settings = decodeSettings(settings, sink)
        }
        return configuration
    }

    static func decodeVersion(_ field: JSONField, _ sink: DiagnosticCollector) -> StoreKitConfiguration.FormatVersion {
        var fields = ObjectFields(field, sink)
        guard let major = fields.required("major", code: .invalidCatalogEntry)?.int(sink, in: 0...1000) else {
            return .init(major: 0, minor: 0)  // already reported
        }
        let minor = fields.optional("minor")?.int(sink, in: 0...1000) ?? 0
        if major < 1 || major > 6 {
            sink.warning(.invalidCatalogEntry, "StoreKit configuration format \(major).\(minor) is not one this version knows (1.0 to 6.x); reading it anyway",
                         pointer: field.pointer, at: field.location)
        }
        return .init(major: major, minor: minor)
    }

    static func decodeProduct(_ field: JSONField, groupID: String?, _ sink: DiagnosticCollector) -> CatalogProduct? {
        var fields = ObjectFields(field, sink)
        guard fields.isObject else { return nil }
        guard let productIDField = fields.required("productID", code: .invalidCatalogEntry),
              let productID = productIDField.string(sink) else { return nil }
        guard !productID.isEmpty else {
            sink.error(.invalidCatalogEntry, "empty product ID", pointer: productIDField.pointer, at: productIDField.location)
            return nil
        }
        guard let typeField = fields.required("type", code: .invalidCatalogEntry), let typeText = typeField.string(sink) else { return nil }
        guard let type = ProductType(rawValue: typeText) else {
            sink.error(.invalidCatalogEntry, "unknown product type \"\(typeText)\"", pointer: typeField.pointer, at: typeField.location,
                       hint: "expected one of " + ProductType.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))
            return nil
        }
        var product = CatalogProduct(productID: productID, type: type)
        product.referenceName = fields.optional("referenceName")?.value.stringValue.map(Self.trimmed).flatMap { $0.isEmpty ? nil : $0 }
        product.displayPrice = decodePrice(fields.optional("displayPrice"), sink) ?? "0"
        product.familyShareable = fields.optional("familyShareable")?.value.boolValue ?? false
        let localizations = fields.optional("localizations")
        product.displayName = localized("displayName", localizations)
        product.localizedDescription = localized("description", localizations)
        if type == .autoRenewable {
            product.subscriptionGroupID = fields.optional("subscriptionGroupID")?.value.stringValue ?? groupID
            if let level = fields.optional("groupNumber") {
                product.groupNumber = level.int(sink, in: 1...1000)
            } else {
                product.groupNumber = 1
            }
            if let period = fields.required("recurringSubscriptionPeriod", "an ISO 8601 duration such as P1M", code: .invalidCatalogEntry) {
                product.recurringSubscriptionPeriod = decodePeriod(period, sink, allowed: subscriptionDurations)
            }
            if let intro = fields.optional("introductoryOffer") {
                product.introductoryOffer = decodeOffer(intro, sink)
            } else if let intros = fields.optional("introductoryOffers")?.array(sink), let first = intros.first {
                product.introductoryOffer = decodeOffer(first, sink)
            }
            product.promotionalOffers = (fields.optional("adHocOffers")?.array(sink) ?? []).compactMap { decodeOffer($0, sink) }
            product.codeOffers = (fields.optional("codeOffers")?.array(sink) ?? []).compactMap { decodeOffer($0, sink) }
            product.winBackOffers = (fields.optional("winbackOffers")?.array(sink) ?? []).compactMap { decodeOffer($0, sink) }
        } else if groupID != nil {
            sink.error(.invalidCatalogEntry, "a subscription group lists \"\(productID)\" of type \"\(typeText)\"",
                       pointer: typeField.pointer, at: typeField.location, hint: "subscription groups hold only \"RecurringSubscription\" products")
            return nil
        }
        return product
    }

    /// `text` without the white space (spaces, tabs, line breaks) around it.
    static func trimmed(_ text: String) -> String {
        text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `displayPrice` is a string in every known version; numbers are accepted too. Either must be a price
    /// (``CatalogProduct/isPrice(_:)``): what is not would be signed into every transaction as a price of 0.
    static func decodePrice(_ field: JSONField?, _ sink: DiagnosticCollector) -> String? {
        guard let field else { return nil }
        guard let text = field.value.stringValue ?? field.value.numberText else {
            sink.error(.invalidCatalogEntry, "displayPrice is not a price", pointer: field.pointer, at: field.location,
                       hint: CatalogProduct.priceHint)
            return nil
        }
        guard CatalogProduct.isPrice(text) else {
            let shown = text.count > 40 ? String(text.prefix(40)) + "… (\(text.utf8.count) bytes)" : text
            sink.error(.invalidCatalogEntry, "displayPrice \"\(shown)\" is not a price", pointer: field.pointer, at: field.location,
                       hint: CatalogProduct.priceHint)
            return nil
        }
        return text
    }

    /// A localized text (`displayName`, `description`) of the first `en_US` localization that has it, else of
    /// the first one that has it; without the spaces and line breaks around it (catalogs carry trailing spaces,
    /// which would reach tester instructions and names).
    static func localized(_ key: String, _ field: JSONField?) -> String? {
        guard let localizations = field?.value.arrayValue else { return nil }
        let entries = localizations.compactMap(\.objectValue)
        let named = entries.compactMap { entry -> (String, String)? in
            guard let text = entry[key]?.stringValue.map(trimmed), !text.isEmpty else { return nil }
            return (entry["locale"]?.stringValue ?? "", text)
        }
        return (named.first { $0.0 == "en_US" } ?? named.first).map(\.1)
    }

    /// The durations App Store Connect offers for an auto-renewable subscription: one week, one, two, three or
    /// six months, one year ("Auto-renewable subscription durations", App Store Connect Help, Offer
    /// auto-renewable subscriptions).
    static let subscriptionDurations = ["P1W", "P1M", "P2M", "P3M", "P6M", "P1Y"].compactMap(ISO8601Duration.init)
    /// The durations App Store Connect offers for one period of an introductory or promotional offer: three
    /// days to one year ("Set up introductory offers for auto-renewable subscriptions", App Store Connect Help).
    static let offerDurations = ["P3D", "P1W", "P2W", "P1M", "P2M", "P3M", "P6M", "P1Y"].compactMap(ISO8601Duration.init)

    /// Reads a period. One that is not among `allowed` but no longer than a year is read with a warning (the
    /// simulator runs it as written); one longer than a year, which App Store Connect never offers, is an error.
    static func decodePeriod(_ field: JSONField, _ sink: DiagnosticCollector, allowed: [ISO8601Duration]) -> ISO8601Duration? {
        guard let text = field.string(sink) else { return nil }
        let written = allowed.map(\.description).joined(separator: ", ")
        guard let period = ISO8601Duration(text), !period.isZero else {
            sink.error(.invalidCatalogEntry, "\"\(text)\" is not an ISO 8601 duration", pointer: field.pointer, at: field.location,
                       hint: "periods are written \(written)")
            return nil
        }
        if allowed.contains(period) { return period }
        guard period.isAtMostOneYear else {
            sink.error(.invalidCatalogEntry, "period \(text) is longer than a year; App Store Connect offers \(written)",
                       pointer: field.pointer, at: field.location)
            return nil
        }
        sink.warning(.invalidCatalogEntry, "period \(text) is not one App Store Connect offers (\(written)); simulated as written",
                     pointer: field.pointer, at: field.location)
        return period
    }

    static func decodeOffer(_ field: JSONField, _ sink: DiagnosticCollector) -> SubscriptionOffer? {
        var fields = ObjectFields(field, sink)
        guard fields.isObject else { return nil }
        guard let modeField = fields.required("paymentMode", code: .invalidCatalogEntry), let modeText = modeField.string(sink) else { return nil }
        guard let mode = SubscriptionOffer.PaymentMode(rawValue: modeText) else {
            sink.error(.invalidCatalogEntry, "unknown offer payment mode \"\(modeText)\"", pointer: modeField.pointer, at: modeField.location,
                       hint: "expected \"free\", \"payAsYouGo\" or \"payUpFront\"")
            return nil
        }
        guard let periodField = fields.required("subscriptionPeriod", code: .invalidCatalogEntry),
              let period = decodePeriod(periodField, sink, allowed: offerDurations) else { return nil }
        let count = fields.optional("numberOfPeriods")?.int(sink, in: 1...1000) ?? 1
        return SubscriptionOffer(offerID: fields.optional("offerID")?.value.stringValue, paymentMode: mode,
                                 subscriptionPeriod: period, numberOfPeriods: count,
                                 // Xcode keeps the last price when an offer becomes a free trial; a free trial costs nothing.
                                 displayPrice: mode == .freeTrial ? nil : decodePrice(fields.optional("displayPrice"), sink))
    }

    static func decodeSettings(_ field: JSONField, _ sink: DiagnosticCollector) -> StoreKitConfiguration.Settings {
        guard let object = field.value.objectValue else {
            sink.warning(.invalidCatalogEntry, "\"settings\" is not an object; using Xcode's defaults", pointer: field.pointer, at: field.location)
            return .init()
        }
        var settings = StoreKitConfiguration.Settings()
        if let value = object["_timeRate"] {
            // Xcode writes an SKTestSession.TimeRate raw value; anything else would run an xcode clock at real time.
            if let raw = value.intValue, RenewalSchedule.TimeRate(rawValue: raw) != nil {
                settings.timeRate = raw
            } else {
                sink.error(.invalidCatalogEntry, value.intValue.map { "_timeRate \($0) is not an SKTestSession.TimeRate raw value" }
                               ?? "_timeRate is not an integer",
                           pointer: JSONPointer.append(field.pointer, "_timeRate"), at: value.location,
                           hint: "Xcode writes one of \(RenewalSchedule.timeRateList); choose the rate in Xcode's StoreKit configuration editor")
            }
        }
        settings.storefront = object["_storefront"]?.stringValue
        if let storefront = settings.storefront, AppStoreStorefront.named(storefront) == nil, let value = object["_storefront"] {
            // Data would otherwise be signed as another storefront's.
            sink.error(.invalidCatalogEntry, "unknown storefront \"\(storefront)\"", pointer: JSONPointer.append(field.pointer, "_storefront"),
                       at: value.location,
                       hint: Suggestion.didYouMean(storefront.uppercased(), among: AppStoreStorefront.countryCodes)
                           ?? "Xcode writes an ISO 3166-1 alpha-3 code of an App Store storefront, e.g. USA, GBR, FRA, DEU, JPN")
        }
        settings.locale = object["_locale"]?.stringValue
        settings.askToBuyEnabled = object["_askToBuyEnabled"]?.boolValue
        settings.billingGracePeriodEnabled = object["_billingGracePeriodEnabled"]?.boolValue
        settings.renewalBillingIssuesEnabled = object["_renewalBillingIssuesEnabled"]?.boolValue ?? object["_billingIssuesEnabled"]?.boolValue
        settings.failTransactionsEnabled = object["_failTransactionsEnabled"]?.boolValue
        return settings
    }
}
