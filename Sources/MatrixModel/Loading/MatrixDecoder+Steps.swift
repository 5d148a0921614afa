import MatrixJSON
extension MatrixDecoder {
    /// Parameters each action takes besides `action`, `account`, `expect` and `note`.
    static func parameters(of action: Action) -> Set<String> {
        switch action {
        case .purchase: ["product", "outcome", "quantity", "offer", "appAccountToken", "terminate"]
        case .purchaseOutsideApp: ["product", "quantity", "offer"]
        case .switchDevice: ["device"]
        case .renew: ["product", "count"]
        case .advanceTime: ["product", "by", "to"]
        case .failRenewal: ["product", "gracePeriod"]
        case .refund: ["product", "reason"]
        case .requestPriceIncrease: ["product", "price"]
        case .extendRenewalDate, .extendRenewalDatesForAllSubscribers: ["product", "extendByDays"]
        case .launch, .relaunch, .quit, .reinstall, .restore, .observe, .requestTestNotification: []
        default: ["product"]
        }
    }

    /// ``parameters(of:)`` for every action, computed once.
    static let parametersByAction: [Action: Set<String>] = Dictionary(uniqueKeysWithValues: Action.allCases.map { ($0, parameters(of: $0)) })

    /// Members every step may have.
    static let commonKeys: Set<String> = ["action", "account", "failNext", "expect", "note"]

    static let stepKeys: Set<String> = [
        "action", "product", "outcome", "quantity", "offer", "appAccountToken", "count", "by", "to", "account", "device",
        "terminate", "gracePeriod", "reason", "price", "extendByDays", "failNext", "expect", "note",
    ]

    func decodeStep(_ field: JSONField) -> Step? {
        var fields = ObjectFields(field, sink)
        guard fields.isObject else { return nil }
        guard let actionField = fields.required("action", "e.g. launch, purchase, refund"), let name = actionField.string(sink) else {
            return nil
        }
        guard let action = Action(rawValue: name) else {
            sink.error(.unknownAction, "unknown action \"\(name)\"", pointer: actionField.pointer, at: actionField.location,
                       hint: Suggestion.didYouMean(name, among: Action.allCases.map(\.rawValue), synonyms: Synonyms.actions)
                           ?? "actions are " + Action.allCases.map(\.rawValue).joined(separator: ", "))
            return nil
        }
        var step = Step(action: action)
        let allowed = Self.parametersByAction[action] ?? []
        // Parameters the action does not take are errors, not warnings: they would silently change nothing.
        var refused: [String] = []
        for key in field.value.objectValue?.members.map(\.key) ?? []
        where Self.stepKeys.contains(key) && !allowed.contains(key) && !Self.commonKeys.contains(key) && !refused.contains(key) {
            refused.append(key)
            let member = field.value.objectValue?[key]
            sink.error(.invalidStep, "action \"\(name)\" does not take \"\(key)\"", pointer: JSONPointer.append(field.pointer, key),
                       at: member?.location ?? field.location)
            fields.ignore(key)
        }
        if let productField = fields.optional("product"), allowed.contains("product"), let productID = productField.string(sink) {
            if checkProduct(productID, productField) {
                checkProductUse(action, productID, productField)
            }
            step.product = productID
        } else if action.requiresProduct {
            _ = fields.required("product", "the product ID acted on")
        }
        if allowed.contains("outcome"), let outcomeField = fields.optional("outcome"), let text = outcomeField.string(sink) {
            step.outcome = decodeEnum(text, outcomeField, as: PurchaseOutcome.self)
        }
        if allowed.contains("quantity"), let quantityField = fields.optional("quantity") {
            step.quantity = quantityField.int(sink, in: 1...10)
            if let productID = step.product, let product = catalog.product(productID), product.type != .consumable,
               let quantity = step.quantity, quantity > 1 {
                sink.error(.productTypeMismatch, "only consumables can be bought in a quantity above 1",
                           pointer: quantityField.pointer, at: quantityField.location)
            }
        }
        if allowed.contains("offer"), let offerField = fields.optional("offer") {
            step.offer = offerField.string(sink)
            if let offer = step.offer, !checkOffer(offer, action: action, product: step.product, offerField) { step.offer = nil }
        }
        if allowed.contains("appAccountToken"), let tokenField = fields.optional("appAccountToken") {
            step.appAccountToken = tokenField.string(sink)
            if let token = step.appAccountToken, !Self.isUUID(token) {
                sink.error(.invalidValue, "appAccountToken must be a UUID", pointer: tokenField.pointer, at: tokenField.location,
                           hint: "e.g. \"7E1D5D4A-2C5B-4A63-9E0B-6F1A2B3C4D5E\"")
            }
        }
        if allowed.contains("terminate"), let terminateField = fields.optional("terminate"), let text = terminateField.string(sink) {
            step.terminate = decodeEnum(text, terminateField, as: TerminationPoint.self)
        }
        if allowed.contains("count"), let countField = fields.optional("count") {
            step.count = countField.int(sink, in: 1...1000)
        }
        if allowed.contains("by"), let byField = fields.optional("by") {
            step.by = decodeDuration(byField)
        }
        if allowed.contains("to"), let toField = fields.optional("to"), let text = toField.string(sink) {
            step.to = decodeEnum(text, toField, as: TimePoint.self)
        }
        if action == .advanceTime, fields.has("by") == fields.has("to") {
            sink.error(.invalidStep, "advanceTime takes exactly one of \"by\" (a duration) and \"to\" (expiration, gracePeriodEnd, billingRetryEnd)",
                       pointer: field.pointer, at: field.location)
        }
        if allowed.contains("gracePeriod"), let graceField = fields.optional("gracePeriod") {
            step.gracePeriod = graceField.bool(sink)
        }
        if allowed.contains("reason"), let reasonField = fields.optional("reason") {
            step.reason = reasonField.int(sink, in: 0...1)
        }
        if allowed.contains("price") {
            if let priceField = fields.required("price", "the new price as the catalog writes prices, e.g. \"5.99\""),
               let price = priceField.string(sink) {
                if Self.isPrice(price) {
                    step.price = price
                    if let productID = step.product, let product = catalog.product(productID),
                       CatalogProduct.milliunits(price) <= product.priceMilliunits {
                        sink.error(.invalidValue, "a price increase needs a price above \(product.displayPrice), the catalog's price of \"\(productID)\"",
                                   pointer: priceField.pointer, at: priceField.location)
                    }
                } else {
                    sink.error(.invalidValue, "\"\(price)\" is not a price", pointer: priceField.pointer, at: priceField.location,
                               hint: "write it as the catalog writes prices: digits with an optional decimal point, e.g. \"5.99\"")
                }
            }
        }
        if allowed.contains("extendByDays"), let daysField = fields.required("extendByDays", "how many days to extend the renewal date by, 1 to 90") {
            // Apple: https://developer.apple.com/documentation/appstoreserverapi/extendbydays (at most 90)
            step.extendByDays = daysField.int(sink, in: 1...90)
        }
        if let accountField = fields.optional("account"), let alias = accountField.string(sink) {
            checkAccount(alias, accountField)
            step.account = alias
        }
        if allowed.contains("device"), let deviceField = fields.optional("device") {
            step.device = deviceField.string(sink)
        }
        if let failField = fields.optional("failNext") {
            step.failNext = decodeFailNext(failField)
        }
        step.note = fields.optional("note")?.string(sink)
        if let expectField = fields.optional("expect") {
            step.expect = decodeExpectation(expectField, step: step)
        }
        fields.finish()
        return step
    }

    /// `{"call": "products" | "purchase" | "sync" | "verification", "error": NAME}`, the error one the call can
    /// fail with in StoreKit.
    func decodeFailNext(_ field: JSONField) -> FailNext? {
        var fields = ObjectFields(field, sink)
        guard fields.isObject else { return nil }
        defer { fields.finish() }
        let callField = fields.required("call", "products, purchase, sync or verification")
        let errorField = fields.required("error", "a StoreKitError, Product.PurchaseError or VerificationError case, e.g. networkError")
        guard let callField, let callName = callField.string(sink), let call = decodeEnum(callName, callField, as: StoreKitCall.self),
              let errorField, let error = errorField.string(sink) else { return nil }
        guard call.errorNames.contains(error) else {
            sink.error(.invalidValue, "failNext: \(call.callName) cannot fail with \"\(error)\"", pointer: errorField.pointer,
                       at: errorField.location,
                       hint: Suggestion.didYouMean(error, among: call.errorNames) ?? "use one of " + call.errorNames.joined(separator: ", "))
            return nil
        }
        return FailNext(call: call, error: error)
    }

    /// Checks that the product's type fits the action (subscription actions need an auto-renewable product).
    func checkProductUse(_ action: Action, _ productID: String, _ field: JSONField) {
        guard let product = catalog.product(productID) else { return }
        let needsAutoRenewable: Set<Action> = [
            .renew, .disableAutoRenew, .enableAutoRenew, .expire, .failRenewal, .recoverBilling, .requestPriceIncrease,
            .consentToPriceIncrease, .declinePriceIncrease, .advanceTime, .extendRenewalDate, .extendRenewalDatesForAllSubscribers,
        ]
        if needsAutoRenewable.contains(action), product.type != .autoRenewable {
            sink.error(.productTypeMismatch, "action \"\(action.rawValue)\" needs an auto-renewable subscription; \"\(productID)\" is \(product.type.storeKitName)",
                       pointer: field.pointer, at: field.location)
        }
    }

    /// Checks an offer a step names; returns false when the step is to name none.
    ///
    /// - `introductory` asks for nothing: StoreKit has no purchase option for the introductory offer, which an
    ///   eligible customer gets by itself; it is a warning and the step buys without an offer.
    ///   Apple: https://developer.apple.com/documentation/storekit/product/subscriptionoffer
    /// - An offer code (`codeOffers`) is redeemed outside the app's purchase call: `purchaseOutsideApp` only.
    /// - A promotional offer needs the app's signature: `purchase` only. Win-back offers go either way.
    ///   Apple: https://developer.apple.com/documentation/storekit/product/purchaseoption
    func checkOffer(_ offer: String, action: Action, product: String?, _ field: JSONField) -> Bool {
        if offer == "introductory" {
            sink.warning(.invalidValue, "introductory offers apply by themselves to eligible customers; StoreKit has no purchase option that asks for one",
                         pointer: field.pointer, at: field.location,
                         hint: "remove \"offer\"; expect \"transaction\": {\"offerType\": 1} to check that the offer applied")
            return false
        }
        guard catalogKnown, let productID = product, let product = catalog.product(productID) else { return true }
        guard product.type == .autoRenewable else {
            sink.error(.productTypeMismatch, "only auto-renewable subscriptions have offers; \"\(productID)\" is \(product.type.storeKitName)",
                       pointer: field.pointer, at: field.location)
            return true
        }
        let promotional = product.promotionalOffers.compactMap(\.offerID)
        let codes = product.codeOffers.compactMap(\.offerID)
        let winBack = product.winBackOffers.compactMap(\.offerID)
        if codes.contains(offer), action == .purchase {
            sink.error(.invalidValue, "\"\(offer)\" is an offer code: customers redeem offer codes outside the app's purchase call",
                       pointer: field.pointer, at: field.location, hint: "use a purchaseOutsideApp step to redeem it")
        } else if promotional.contains(offer), action == .purchaseOutsideApp {
            sink.error(.invalidValue, "\"\(offer)\" is a promotional offer, which only the app can apply (with its signature)",
                       pointer: field.pointer, at: field.location, hint: "use a purchase step to apply it")
        } else if !(promotional + codes + winBack).contains(offer) {
            let known = action == .purchase ? promotional + winBack : codes + winBack
            sink.error(.invalidValue, "\"\(productID)\" has no offer \"\(offer)\"", pointer: field.pointer, at: field.location,
                       hint: Suggestion.didYouMean(offer, among: known)
                           ?? (known.isEmpty ? "the catalog defines no such offer for it" : "its offers: " + known.joined(separator: ", ")))
        }
        return true
    }

    /// Whether `text` is a price as a catalog writes it: digits, optionally a point and up to three decimals.
    static func isPrice(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), !parts[0].isEmpty, parts[0].count <= 9, parts[0].allSatisfy(\.isASCII), parts[0].allSatisfy(\.isNumber) else { return false }
        guard parts.count == 2 else { return true }
        return (1...3).contains(parts[1].count) && parts[1].allSatisfy { $0.isASCII && $0.isNumber }
    }

    func decodeEnum<E: RawRepresentable & CaseIterable>(_ text: String, _ field: JSONField, as type: E.Type) -> E? where E.RawValue == String {
        if let value = E(rawValue: text) { return value }
        let allowed = E.allCases.map(\.rawValue)
        sink.error(.invalidValue, "\"\(text)\" is not one of " + allowed.joined(separator: ", "), pointer: field.pointer,
                   at: field.location, hint: Suggestion.didYouMean(text, among: allowed, synonyms: Synonyms.results))
        return nil
    }

    static func isUUID(_ text: String) -> Bool {
        let groups = text.split(separator: "-", omittingEmptySubsequences: false)
        return groups.map(\.count) == [8, 4, 4, 4, 12] && groups.allSatisfy { $0.allSatisfy(\.isHexDigit) }
    }
}
