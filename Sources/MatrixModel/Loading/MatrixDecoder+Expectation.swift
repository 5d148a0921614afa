import MatrixJSON
extension MatrixDecoder {
    /// App Store Server Notifications V2 types and their subtypes.
    /// Apple: https://developer.apple.com/documentation/appstoreservernotifications/notificationtype
    static let notificationTypes: [String: Set<String>] = [
        "CONSUMPTION_REQUEST": [],
        "DID_CHANGE_RENEWAL_PREF": ["UPGRADE", "DOWNGRADE"],
        "DID_CHANGE_RENEWAL_STATUS": ["AUTO_RENEW_ENABLED", "AUTO_RENEW_DISABLED"],
        "DID_FAIL_TO_RENEW": ["GRACE_PERIOD"],
        "DID_RENEW": ["BILLING_RECOVERY"],
        "EXPIRED": ["VOLUNTARY", "BILLING_RETRY", "PRICE_INCREASE", "PRODUCT_NOT_FOR_SALE"],
        "EXTERNAL_PURCHASE_TOKEN": ["UNREPORTED"],
        "GRACE_PERIOD_EXPIRED": [],
        "OFFER_REDEEMED": ["INITIAL_BUY", "RESUBSCRIBE", "UPGRADE", "DOWNGRADE"],
        "ONE_TIME_CHARGE": [],
        "PRICE_INCREASE": ["PENDING", "ACCEPTED"],
        "REFUND": [],
        "REFUND_DECLINED": [],
        "REFUND_REVERSED": [],
        "RENEWAL_EXTENDED": [],
        "RENEWAL_EXTENSION": ["SUMMARY", "FAILURE"],
        "REVOKE": [],
        "SUBSCRIBED": ["INITIAL_BUY", "RESUBSCRIBE"],
        "TEST": [],
    ]

    func decodeExpectation(_ field: JSONField, step: Step) -> Expectation {
        var fields = ObjectFields(field, sink)
        var expectation = Expectation()
        if let accessField = fields.optional("access"), let tiers = accessField.strings(sink) {
            if let tierNames {
                for (tier, element) in tiers where !tierNames.contains(tier) {
                    sink.error(.unknownTier, "unknown tier \"\(tier)\"", pointer: element.pointer, at: element.location,
                               hint: Suggestion.didYouMean(tier, among: tierNames) ?? "define it under \"tiers\"")
                }
            }
            expectation.access = tiers.map(\.0)
            // After quit the app is not running: it grants nothing until the next launch.
            if step.action == .quit, !tiers.isEmpty {
                sink.warning(.invalidStep, "after quit the app is not running, so it grants no access; this expectation cannot pass",
                             pointer: accessField.pointer, at: accessField.location,
                             hint: "expect \"access\": [] here, or move the expectation to the launch or relaunch that follows")
            }
        }
        if let entitlementsField = fields.optional("entitlements"), let products = entitlementsField.strings(sink) {
            for (productID, element) in products { checkProduct(productID, element) }
            expectation.entitlements = products.map(\.0)
        }
        if let resultField = fields.optional("result"), let result = resultField.string(sink) {
            // Only a purchase and a restore report a result (Product.PurchaseResult, AppStore.sync()).
            if step.action != .purchase && step.action != .restore {
                let article = "aeiou".contains(step.action.rawValue.first ?? "x") ? "an" : "a"
                sink.error(.invalidStep, "\(article) \(step.action.rawValue) step reports no result; only purchase and restore steps do",
                           pointer: resultField.pointer, at: resultField.location,
                           hint: "remove \"result\", or expect access, entitlements or transactions instead")
            }
            let allowed = step.action == .restore ? Expectation.restoreResults : Expectation.purchaseResults
            if !allowed.contains(result) {
                sink.error(.invalidValue, "\"\(result)\" is not a \(step.action == .restore ? "restore" : "purchase") result",
                           pointer: resultField.pointer, at: resultField.location,
                           hint: Suggestion.didYouMean(result, among: allowed, synonyms: Synonyms.results)
                               ?? "expected one of " + allowed.joined(separator: ", "))
            }
            expectation.result = result
        }
        if let statusField = fields.optional("subscriptionStatus"), let members = statusField.members(sink) {
            var statuses: [String: String] = [:]
            for member in members {
                guard let state = member.field.string(sink) else { continue }
                if !Expectation.subscriptionStates.contains(state) {
                    sink.error(.invalidValue, "\"\(state)\" is not a subscription state", pointer: member.field.pointer, at: member.field.location,
                               hint: Suggestion.didYouMean(state, among: Expectation.subscriptionStates)
                                   ?? "expected one of " + Expectation.subscriptionStates.joined(separator: ", "))
                }
                statuses[groupName(member.key, member.field, at: member.keyLocation)] = state
            }
            expectation.subscriptionStatus = statuses
        }
        if let balanceField = fields.optional("balance"), let members = balanceField.members(sink) {
            var balances: [String: Int] = [:]
            for member in members {
                if !balanceNames.contains(member.key) {
                    sink.error(.invalidValue, "unknown balance \"\(member.key)\"", pointer: member.field.pointer, at: member.keyLocation,
                               hint: Suggestion.didYouMean(member.key, among: balanceNames) ?? "balances are named under \"consumables\"")
                }
                if let amount = member.field.int(sink, in: 0...Int(Int32.max)) { balances[member.key] = amount }
            }
            expectation.balance = balances
        }
        if let notificationsField = fields.optional("notifications"), let names = notificationsField.strings(sink) {
            for (name, element) in names { checkNotification(name, element) }
            expectation.notifications = names.map(\.0)
            if caseOnXcodeClock, !names.isEmpty {
                // Apple: https://developer.apple.com/documentation/appstoreservernotifications/environment
                sink.warning(.invalidValue, "StoreKit Testing in Xcode sends no App Store Server Notifications; this expectation is not judged on its clock",
                             pointer: notificationsField.pointer, at: notificationsField.location,
                             hint: "expect \"serverNotifications\": false, or run the case on a Sandbox or real clock")
            }
        }
        if let pricesField = fields.optional("displayPrice"), let members = pricesField.members(sink) {
            var prices: [String: String] = [:]
            for member in members {
                checkProduct(member.key, member.field, at: member.keyLocation)
                if let shown = member.field.string(sink) { prices[member.key] = shown }
            }
            expectation.displayPrice = prices
        }
        if let offersField = fields.optional("introductoryOffer"), let members = offersField.members(sink) {
            var offers: [String: String] = [:]
            for member in members {
                if checkProduct(member.key, member.field, at: member.keyLocation), catalogKnown,
                   let product = catalog.product(member.key), product.type != .autoRenewable {
                    sink.error(.productTypeMismatch, "only auto-renewable subscriptions have introductory offers; \"\(member.key)\" is \(product.type.storeKitName)",
                               pointer: member.field.pointer, at: member.keyLocation)
                }
                guard let mode = member.field.string(sink) else { continue }
                if !Expectation.introductoryOfferModes.contains(mode) {
                    sink.error(.invalidValue, "\"\(mode)\" is not an introductory offer", pointer: member.field.pointer, at: member.field.location,
                               hint: Suggestion.didYouMean(mode, among: Expectation.introductoryOfferModes)
                                   ?? "expected one of " + Expectation.introductoryOfferModes.joined(separator: ", "))
                }
                offers[member.key] = mode
            }
            expectation.introductoryOffer = offers
        }
        expectation.serverNotifications = fields.optional("serverNotifications")?.bool(sink)
        if let eligibilityField = fields.optional("eligibleForIntroOffer"), let members = eligibilityField.members(sink) {
            var eligibility: [String: Bool] = [:]
            for member in members {
                guard let eligible = member.field.bool(sink) else { continue }
                eligibility[groupName(member.key, member.field, at: member.keyLocation)] = eligible
            }
            expectation.eligibleForIntroOffer = eligibility
        }
        if let renewalsField = fields.optional("renewals") {
            expectation.renewals = renewalsField.int(sink, in: 0...100_000)
        }
        if let transactionField = fields.optional("transaction") {
            expectation.transaction = decodeTransactionExpectation(transactionField, step: step)
        }
        if let renewalField = fields.optional("renewalInfo") {
            expectation.renewalInfo = decodeRenewalInfoExpectation(renewalField, step: step)
        }
        // An unknown key here would silently judge nothing (a typo such as "acess"): it is an error.
        fields.finish(severity: .error)
        return expectation
    }

    /// The subscription group name for a name or an `id` written in the matrix (reports unknown groups).
    func groupName(_ key: String, _ field: JSONField, at location: SourceLocation) -> String {
        guard catalogKnown else { return key }
        if catalog.subscriptionGroups.contains(where: { $0.name == key }) { return key }
        if let group = catalog.group(key) { return group.name }
        sink.error(.invalidValue, "unknown subscription group \"\(key)\"", pointer: field.pointer, at: location,
                   hint: Suggestion.didYouMean(key, among: catalog.subscriptionGroups.map(\.name)) ?? "use a group name from the catalog: " + catalog.subscriptionGroups.map { "\"\($0.name)\"" }.joined(separator: ", "))
        return key
    }

    func checkNotification(_ name: String, _ field: JSONField) {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard (1...2).contains(parts.count), let subtypes = Self.notificationTypes[parts[0]] else {
            sink.error(.invalidValue, "\"\(name)\" is not a notification type", pointer: field.pointer, at: field.location,
                       hint: Suggestion.didYouMean(parts[0], among: Self.notificationTypes.keys) ?? "write TYPE or TYPE/SUBTYPE, e.g. SUBSCRIBED/INITIAL_BUY")
            return
        }
        if parts.count == 2, !subtypes.contains(parts[1]) {
            sink.error(.invalidValue, "\"\(parts[1])\" is not a subtype of \(parts[0])", pointer: field.pointer, at: field.location,
                       hint: subtypes.isEmpty ? "\(parts[0]) has no subtype" : Suggestion.didYouMean(parts[1], among: subtypes))
        }
    }

    func decodeTransactionExpectation(_ field: JSONField, step: Step) -> TransactionExpectation {
        var fields = ObjectFields(field, sink)
        var expected = TransactionExpectation()
        if let productField = fields.optional("product"), let productID = productField.string(sink) {
            checkProduct(productID, productField)
            expected.product = productID
        } else if step.product == nil {
            sink.error(.missingField, "a transaction expectation needs \"product\" when the step names none", pointer: field.pointer, at: field.location)
        }
        if let ownership = fields.optional("inAppOwnershipType"), let text = ownership.string(sink) {
            if !["PURCHASED", "FAMILY_SHARED"].contains(text) {
                sink.error(.invalidValue, "inAppOwnershipType is PURCHASED or FAMILY_SHARED", pointer: ownership.pointer, at: ownership.location)
            }
            expected.inAppOwnershipType = text
        }
        expected.isUpgraded = fields.optional("isUpgraded")?.bool(sink)
        expected.revoked = fields.optional("revoked")?.bool(sink)
        expected.revocationReason = fields.optional("revocationReason")?.int(sink, in: 0...1)
        if let reason = fields.optional("transactionReason"), let text = reason.string(sink) {
            if !["PURCHASE", "RENEWAL"].contains(text) {
                sink.error(.invalidValue, "transactionReason is PURCHASE or RENEWAL", pointer: reason.pointer, at: reason.location)
            }
            expected.transactionReason = text
        }
        expected.offerType = fields.optional("offerType")?.int(sink, in: 1...4)
        expected.price = fields.optional("price")?.int(sink, in: 0...999_999_999_999).map(Int64.init)
        if let currencyField = fields.optional("currency"), let code = currencyField.string(sink) {
            if code.count != 3 || !code.allSatisfy({ $0.isASCII && $0.isUppercase }) {
                sink.error(.invalidValue, "\"\(code)\" is not an ISO 4217 currency code", pointer: currencyField.pointer, at: currencyField.location,
                           hint: "three capital letters, e.g. USD, EUR, JPY")
            }
            expected.currency = code
        }
        if let afterField = fields.optional("expiresAfter") {
            expected.expiresAfter = decodeDuration(afterField)
        }
        fields.finish(severity: .error)
        return expected
    }

    func decodeRenewalInfoExpectation(_ field: JSONField, step: Step) -> RenewalInfoExpectation {
        var fields = ObjectFields(field, sink)
        var expected = RenewalInfoExpectation()
        if let groupField = fields.optional("group"), let name = groupField.string(sink) {
            expected.group = groupName(name, groupField, at: groupField.location)
        } else if catalogKnown, step.product.flatMap({ catalog.product($0)?.subscriptionGroupID }) == nil {
            // Without a readable catalog nothing tells whether the step's product is a subscription.
            sink.error(.missingField, "a renewalInfo expectation needs \"group\" when the step names no subscription",
                       pointer: field.pointer, at: field.location)
        }
        if let statusField = fields.optional("autoRenewStatus") {
            if let flag = statusField.value.boolValue {
                expected.autoRenewStatus = flag ? 1 : 0
            } else {
                expected.autoRenewStatus = statusField.int(sink, in: 0...1)
            }
        }
        if let productField = fields.optional("autoRenewProductId"), let productID = productField.string(sink) {
            checkProduct(productID, productField)
            expected.autoRenewProductId = productID
        }
        expected.expirationIntent = fields.optional("expirationIntent")?.int(sink, in: 1...5)
        expected.isInBillingRetryPeriod = fields.optional("isInBillingRetryPeriod")?.bool(sink)
        fields.finish(severity: .error)
        return expected
    }
}
