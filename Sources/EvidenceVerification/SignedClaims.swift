import AppStoreModels
import EvidenceArchive
import EvidenceStore
import Foundation
import MatrixModel
import SignedData
import Signing

/// Checks what a record claims against what its own signed items say, record by record: a signature proves a
/// payload, not the record around it, so a signed item moved to another record, repeated or removed, or an
/// observation edited to disagree with the payloads beside it, would otherwise verify.
///
/// Only items whose signature verified are read; those that did not are failures of their own. For every run:
/// a record names no signed item twice; each signed transaction is one of the step's `transactionIds`; an
/// observed transaction with a signed transaction's id has the signed fields; an auto-renewable subscription whose
/// latest signed transaction is revoked or upgraded is not among the entitlements (StoreKit's
/// `currentEntitlements` leaves such transactions out); observed renewal info with the original transaction of a
/// signed renewal info has the signed fields; and when a record carries signed notifications, they are the
/// notifications it reports, in order. A run whose environment signs everything itself (a local run) is held
/// to more: every transaction a step names and every notification it reports is signed in its record, its
/// transactions and renewal info are signed at the step's store time and its notifications no later, and no
/// signed item appears in two records, every product among a step's entitlements has an observed
/// transaction, and a subscription's observed `subscriptionStatus` agrees with its signed renewal info (billing
/// retry within the grace period is `inGracePeriod`, after it `inBillingRetryPeriod`).
///
/// Apple: https://developer.apple.com/documentation/appstoreserverapi/jwstransactiondecodedpayload,
/// https://developer.apple.com/documentation/appstoreserverapi/jwsrenewalinfodecodedpayload,
/// https://developer.apple.com/documentation/storekit/transaction/currententitlements,
/// https://developer.apple.com/documentation/storekit/product/subscriptioninfo/renewalstate
struct SignedClaims {
    /// One signed item of a record, as verified.
    struct Item {
        /// `transaction`, `renewalInfo`, `notification`, `appTransaction`, or `notification.transaction` for an
        /// item inside a notification.
        var kind: String
        var jws: String
        var outcome: JWSOutcome

        var isNested: Bool { kind.contains(".") }
        /// The payload, when the signature verified (or was not checked because --environment asked).
        var trustedPayload: Data? { outcome.status == .failed ? nil : outcome.payload }
    }

    /// Whether the run's environment signs every transaction and notification it reports (a local run).
    let runSigns: Bool
    /// Top-level items seen so far in a signing run, by fingerprint, with the seq of their record.
    private var seen: [Fingerprint: Int] = [:]
    /// The store time of the previous record, with its case: a step's notifications are sent after it.
    private var previous: (case: String, storeTime: Int64)?

    init(runSigns: Bool) {
        self.runSigns = runSigns
    }

    /// The first 16 bytes of the SHA-256 of a JWS's signing input (`header.payload`), alone or with the `r` of
    /// its ES256 signature.
    ///
    /// An ECDSA signature (r, s) has a twin (r, n − s) that verifies too, so a copy with the twin signature is
    /// still the same item: the fingerprint never includes `s`. Within a record, items are told apart by their
    /// signing input alone. Across records, by the signing input and `r`: two steps may sign the same payload (a
    /// transaction unchanged between them), each with its own signature, whose `r` differs (each signature draws
    /// its own nonce).
    private struct Fingerprint: Hashable {
        var high: UInt64
        var low: UInt64

        init(_ jws: String, signingInputOnly: Bool = false) {
            let cut = jws.lastIndex(of: ".") ?? jws.endIndex
            var signed = Data(jws[..<cut].utf8)
            if !signingInputOnly, cut < jws.endIndex, let signature = Base64URL.decode(jws[jws.index(after: cut)...]) {
                signed.append(0)
                signed.append(signature.prefix(signature.count / 2))
            }
            let digest = SHA256.hash(signed)
            high = digest[0 ..< 8].reduce(0) { $0 << 8 | UInt64($1) }
            low = digest[8 ..< 16].reduce(0) { $0 << 8 | UInt64($1) }
        }
    }

    /// Checks one record; `problem` receives each contradiction as a sentence.
    mutating func check(_ record: EvidenceRecord, items: [Item], problem: (String) -> Void) {
        let place = "seq \(record.seq) (\(record.case) step \(record.step))"
        defer {
            if let time = record.observed?.storeTime { previous = (record.case, time) } else if previous?.case != record.case { previous = nil }
        }
        guard let observed = record.observed else { return }

        // Items are numbered as the record's signedData lists them; those inside a notification are not counted.
        let topLevel = items.filter { !$0.isNested }
        var inRecord: [Fingerprint: Int] = [:]
        for (index, item) in topLevel.enumerated() {
            let key = Fingerprint(item.jws), signedKey = Fingerprint(item.jws, signingInputOnly: true)
            if let first = inRecord[signedKey] {
                problem("\(place): signed item \(index + 1) (\(item.kind)) repeats item \(first + 1) of the same record")
            } else if runSigns, let seq = seen[key] {
                problem("\(place): signed item \(index + 1) (\(item.kind)) is the one recorded at seq \(seq); each step signs its own")
            }
            inRecord[signedKey] = inRecord[signedKey] ?? index
            if runSigns { seen[key] = seen[key] ?? record.seq }
        }
        // What did not verify is reported as such; the claims are compared with what did.
        guard items.allSatisfy({ $0.trustedPayload != nil }) else { return }

        // The verifier read each trusted payload through StrictJSON already (no key twice), so one decoder pass is enough.
        let decoder = JSONDecoder()
        var transactions: [(index: Int, payload: JWSTransactionDecodedPayload)] = []
        var renewalInfos: [(index: Int, payload: JWSRenewalInfoDecodedPayload)] = []
        var notifications: [(index: Int, payload: ResponseBodyV2DecodedPayload)] = []
        for (index, item) in topLevel.enumerated() {
            guard let payload = item.trustedPayload else { continue }
            switch item.kind {
            case "transaction": (try? decoder.decode(JWSTransactionDecodedPayload.self, from: payload)).map { transactions.append((index, $0)) }
            case "renewalInfo": (try? decoder.decode(JWSRenewalInfoDecodedPayload.self, from: payload)).map { renewalInfos.append((index, $0)) }
            case "notification": (try? decoder.decode(ResponseBodyV2DecodedPayload.self, from: payload)).map { notifications.append((index, $0)) }
            default: break
            }
        }

        let signedIds = Set(transactions.compactMap(\.payload.transactionId))
        // One observation lists a transaction once: a second copy could carry other fields than the signed one.
        var listed = Set<String>()
        for transaction in observed.transactions where !listed.insert(transaction.transactionId).inserted {
            problem("\(place): the observed transactions list \(transaction.transactionId) twice")
        }
        for (index, transaction) in transactions {
            guard let id = transaction.transactionId else { continue }
            let what = "signed transaction \(id) (item \(index + 1), \(transaction.productId ?? "no product"))"
            if !observed.transactionIds.contains(id) {
                problem("\(place): \(what) is not one of the step's transactionIds (\(Self.list(observed.transactionIds))); it was signed for another step")
            }
            if let claimed = observed.transactions.first(where: { $0.transactionId == id }) {
                if let signed = ObservedTransaction(payload: transaction) {
                    for (field, claim, truth) in Self.differences(claimed, signed) {
                        problem("\(place): the observed transaction \(id) has \(field) \(claim), its \(what) \(truth)")
                    }
                }
                // Transaction.currentEntitlements never holds a subscription whose latest transaction is revoked or upgraded.
                if transaction.type == "Auto-Renewable Subscription", let product = transaction.productId,
                   observed.transactions.last(where: { $0.productId == product })?.transactionId == id,
                   observed.entitlements.contains(product), transaction.revocationDate != nil || transaction.isUpgraded == true {
                    let state = transaction.revocationDate != nil ? "revoked" : "upgraded"
                    problem("\(place): the observed entitlements hold \(product), but its latest transaction, \(what), is \(state), "
                            + "which current entitlements leave out")
                }
            }
        }

        let signedNames = notifications.map { note in
            (note.payload.notificationType ?? "?") + (note.payload.subtype.map { "/\($0)" } ?? "")
        }
        if (runSigns || !notifications.isEmpty), signedNames != observed.notifications {
            problem("\(place): the record reports notifications \(Self.list(observed.notifications)), its signed notifications are \(Self.list(signedNames))")
        }

        // Observed renewal info of a subscription whose renewal info the record signs has the signed fields: found by
        // the signed original transaction, else by the signed product (an observation that renamed the original
        // transaction is then named); a run that signs everything observes every renewal info it signs.
        let observedRenewals = observed.renewalInfo.map { (group: $0.key, info: $0.value) }
        for (index, payload) in renewalInfos {
            guard let signed = ObservedRenewalInfo(payload: payload) else { continue }
            guard let claimed = observedRenewals.first(where: { $0.info.originalTransactionId == signed.originalTransactionId })
                    ?? observedRenewals.first(where: { $0.info.productId == signed.productId }) else {
                if runSigns {
                    problem("\(place): signed renewal info (item \(index + 1)) of original transaction \(signed.originalTransactionId) has no "
                            + "observed renewal info; the run observes every renewal info it signs")
                }
                continue
            }
            let what = "its signed renewal info (item \(index + 1))"
            for (field, claim, truth) in Self.differences(claimed.info, signed) {
                problem("\(place): the observed renewal info of \(claimed.group) has \(field) \(claim), \(what) \(truth)")
            }
            // Product.SubscriptionInfo.RenewalState: billing retry is inGracePeriod while the grace period lasts,
            // inBillingRetryPeriod after it; a subscription not in billing retry is in neither state.
            guard runSigns, let storeTime = observed.storeTime, let state = observed.subscriptionStatus[claimed.group] else { continue }
            let inGrace = signed.gracePeriodExpiresDate.map { $0 > storeTime } ?? false
            let retryStates = ["inGracePeriod", "inBillingRetryPeriod"]
            let agrees = signed.isInBillingRetryPeriod ? state == (inGrace ? retryStates[0] : retryStates[1]) : !retryStates.contains(state)
            if !agrees {
                let signedState = signed.isInBillingRetryPeriod ? "is in billing retry" + (inGrace ? " within its grace period" : " after its grace period")
                    : "is not in billing retry"
                problem("\(place): the observed subscriptionStatus of \(claimed.group) is \(state), but \(what) \(signedState)")
            }
        }

        guard runSigns else { return }
        // Transaction.currentEntitlements holds transactions: a product entitled is a product with a transaction.
        let observedProducts = Set(observed.transactions.map(\.productId))
        for product in observed.entitlements where !observedProducts.contains(product) {
            problem("\(place): the observed entitlements hold \(product), but the step observes no transaction of it")
        }
        for id in observed.transactionIds where !signedIds.contains(id) {
            problem("\(place): transaction \(id) of the step's transactionIds has no signed transaction in the record; "
                    + "the run signs every transaction a step creates or changes")
        }
        guard let storeTime = observed.storeTime else { return }
        let signedAtStep = transactions.map { ($0.index, "transaction", $0.payload.signedDate) }
            + renewalInfos.map { ($0.index, "renewalInfo", $0.payload.signedDate) }
        for (index, kind, date) in signedAtStep where date?.milliseconds != storeTime {
            problem("\(place): signed item \(index + 1) (\(kind)) was signed at \(date?.description ?? "no date"), not at the step's store time "
                    + "\(MillisecondsDate(storeTime)); it was signed for another step")
        }
        let began = previous?.case == record.case ? previous?.storeTime : nil
        for (index, payload) in notifications {
            guard let date = payload.signedDate?.milliseconds else { continue }
            if date > storeTime || began.map({ date < $0 }) == true {
                problem("\(place): signed item \(index + 1) (notification) was sent at \(MillisecondsDate(date)), outside the step "
                        + "(\(began.map { MillisecondsDate($0).description } ?? "its start") to \(MillisecondsDate(storeTime))); it was signed for another step")
            }
        }
    }

    /// The fields in which an observed transaction differs from the one derived from its signed payload.
    static func differences(_ claimed: ObservedTransaction, _ signed: ObservedTransaction) -> [(String, String, String)] {
        var found = FieldDifferences()
        found.compare("originalTransactionId", claimed.originalTransactionId, signed.originalTransactionId)
        found.compare("productId", claimed.productId, signed.productId)
        found.compare("purchaseDate", claimed.purchaseDate, signed.purchaseDate)
        found.compare("expiresDate", claimed.expiresDate, signed.expiresDate)
        found.compare("inAppOwnershipType", claimed.inAppOwnershipType, signed.inAppOwnershipType)
        found.compare("isUpgraded", claimed.isUpgraded, signed.isUpgraded)
        found.compare("revocationDate", claimed.revocationDate, signed.revocationDate)
        found.compare("revocationReason", claimed.revocationReason, signed.revocationReason)
        found.compare("transactionReason", claimed.transactionReason, signed.transactionReason)
        found.compare("offerType", claimed.offerType, signed.offerType)
        found.compare("quantity", claimed.quantity, signed.quantity)
        // Price and currency are newer fields of an observation: a record that names them must match.
        if claimed.price != nil { found.compare("price", claimed.price, signed.price) }
        if claimed.currency != nil { found.compare("currency", claimed.currency, signed.currency) }
        return found.list
    }

    /// The fields in which observed renewal info differs from the renewal info derived from its signed payload.
    static func differences(_ claimed: ObservedRenewalInfo, _ signed: ObservedRenewalInfo) -> [(String, String, String)] {
        var found = FieldDifferences()
        found.compare("originalTransactionId", claimed.originalTransactionId, signed.originalTransactionId)
        found.compare("productId", claimed.productId, signed.productId)
        found.compare("autoRenewStatus", claimed.autoRenewStatus, signed.autoRenewStatus)
        found.compare("autoRenewProductId", claimed.autoRenewProductId, signed.autoRenewProductId)
        found.compare("expirationIntent", claimed.expirationIntent, signed.expirationIntent)
        found.compare("isInBillingRetryPeriod", claimed.isInBillingRetryPeriod, signed.isInBillingRetryPeriod)
        found.compare("gracePeriodExpiresDate", claimed.gracePeriodExpiresDate, signed.gracePeriodExpiresDate)
        found.compare("renewalDate", claimed.renewalDate, signed.renewalDate)
        return found.list
    }

    /// The fields compared so far that differ, each as its name, the claimed value and the signed one (`none`
    /// for an absent value).
    private struct FieldDifferences {
        private(set) var list: [(String, String, String)] = []

        mutating func compare<T: Equatable>(_ name: String, _ claimed: T?, _ signed: T?) {
            func text(_ value: T?) -> String { value.map { "\($0)" } ?? "none" }
            if claimed != signed { list.append((name, text(claimed), text(signed))) }
        }
    }

    private static func list(_ values: [String]) -> String {
        values.isEmpty ? "none" : "[" + values.joined(separator: ", ") + "]"
    }
}
