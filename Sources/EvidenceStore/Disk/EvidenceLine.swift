import MatrixJSON
import MatrixModel

/// An evidence record as one line of `evidence.jsonl`: the bytes `JSONEncoder` with
/// `[.sortedKeys, .withoutEscapingSlashes]` gives for it, written directly (several times faster; records carry
/// kilobytes of signed data). Tests compare both encodings field by field.
enum EvidenceLine {
    /// The record's JSON, without the newline.
    static func encode(_ record: EvidenceRecord) -> [UInt8] {
        var json = CompactJSONWriter()
        json.record(record)
        return json.bytes
    }

    /// The records' lines, each ended by a newline, in one buffer.
    static func lines(_ records: [EvidenceRecord]) -> [UInt8] {
        // Room for every line at once: a record's signed data, and a few kilobytes for the rest of it (at most
        // about 3 KB in the release matrix's records), so that the buffer is not grown and copied on the way.
        var capacity = 0
        for record in records {
            capacity += 4096
            for item in record.observed?.signedData ?? [] { capacity += item.jws.utf8.count }
        }
        var json = CompactJSONWriter(capacity: capacity)
        for record in records {
            json.record(record)
            json.endLine()
        }
        return json.bytes
    }
}

extension CompactJSONWriter {
    mutating func record(_ r: EvidenceRecord) {
        beginObject()
        member("account") { $0.account(r.account) }
        member("action") { $0.step(r.action) }
        field("appFault", r.appFault)
        field("build", r.build)
        field("case", r.case)
        field("clock", r.clock)
        field("device", r.device)
        field("environment", r.environment)
        field("environmentLimit", r.environmentLimit)
        if let expected = r.expected { member("expected") { $0.expectation(expected) } }
        field("kind", r.kind)
        field("modelledWallTimeMs", r.modelledWallTimeMs)
        if let observed = r.observed { member("observed") { $0.observation(observed) } }
        field("os", r.os)
        field("product", r.product)
        field("reason", r.reason)
        field("run", r.run)
        field("seq", r.seq)
        field("step", r.step)
        field("storeTime", r.storeTime)
        field("verdict", r.verdict.rawValue)
        field("wallEnd", r.wallEnd)
        field("wallStart", r.wallStart)
        endObject()
    }

    mutating func account(_ a: AccountRef) {
        beginObject()
        field("alias", a.alias)
        field("hash", a.hash)
        field("state", a.state)
        endObject()
    }

    mutating func step(_ s: Step) {
        beginObject()
        field("account", s.account)
        field("action", s.action.rawValue)
        field("appAccountToken", s.appAccountToken)
        field("by", s.by?.description)
        field("count", s.count)
        field("device", s.device)
        if let expect = s.expect { member("expect") { $0.expectation(expect) } }
        field("extendByDays", s.extendByDays)
        if let failNext = s.failNext {
            key("failNext")
            beginObject()
            field("call", failNext.call.rawValue)
            field("error", failNext.error)
            endObject()
        }
        field("gracePeriod", s.gracePeriod)
        field("note", s.note)
        field("offer", s.offer)
        field("outcome", s.outcome?.rawValue)
        field("price", s.price)
        field("product", s.product)
        field("quantity", s.quantity)
        field("reason", s.reason)
        field("terminate", s.terminate?.rawValue)
        field("to", s.to?.rawValue)
        endObject()
    }

    mutating func expectation(_ e: Expectation) {
        beginObject()
        field("access", e.access)
        field("balance", e.balance) { $0.int($1) }
        field("displayPrice", e.displayPrice) { $0.string($1) }
        field("eligibleForIntroOffer", e.eligibleForIntroOffer) { $0.bool($1) }
        field("entitlements", e.entitlements)
        field("introductoryOffer", e.introductoryOffer) { $0.string($1) }
        field("notifications", e.notifications)
        if let info = e.renewalInfo {
            key("renewalInfo")
            beginObject()
            field("autoRenewProductId", info.autoRenewProductId)
            field("autoRenewStatus", info.autoRenewStatus)
            field("expirationIntent", info.expirationIntent)
            field("group", info.group)
            field("isInBillingRetryPeriod", info.isInBillingRetryPeriod)
            endObject()
        }
        field("renewals", e.renewals)
        field("result", e.result)
        field("serverNotifications", e.serverNotifications)
        field("subscriptionStatus", e.subscriptionStatus) { $0.string($1) }
        if let t = e.transaction {
            key("transaction")
            beginObject()
            field("currency", t.currency)
            field("expiresAfter", t.expiresAfter?.description)
            field("inAppOwnershipType", t.inAppOwnershipType)
            field("isUpgraded", t.isUpgraded)
            field("offerType", t.offerType)
            field("price", t.price)
            field("product", t.product)
            field("revocationReason", t.revocationReason)
            field("revoked", t.revoked)
            field("transactionReason", t.transactionReason)
            endObject()
        }
        endObject()
    }

    mutating func observation(_ o: Observation) {
        beginObject()
        field("access", o.access)
        field("balance", o.balance) { $0.int($1) }
        field("conflicts", o.conflicts)
        field("displayPrice", o.displayPrice) { $0.string($1) }
        field("eligibleForIntroOffer", o.eligibleForIntroOffer) { $0.bool($1) }
        field("entitlements", o.entitlements)
        field("introductoryOffer", o.introductoryOffer) { $0.string($1) }
        field("message", o.message)
        field("notObserved", o.notObserved)
        field("notifications", o.notifications)
        field("renewalInfo", o.renewalInfo) { $0.renewalInfo($1) }
        field("renewals", o.renewals)
        field("result", o.result)
        if let server = o.server { member("server") { $0.server(server) } }
        field("serverNotifications", o.serverNotifications)
        key("signedData")
        beginArray()
        for item in o.signedData {
            element()
            beginObject()
            field("jws", item.jws)
            field("kind", item.kind)
            endObject()
        }
        endArray()
        field("storeMessage", o.storeMessage)
        field("storeTime", o.storeTime)
        field("subscriptionStatus", o.subscriptionStatus) { $0.string($1) }
        field("transactionIds", o.transactionIds)
        key("transactions")
        beginArray()
        for transaction in o.transactions {
            element()
            self.transaction(transaction)
        }
        endArray()
        endObject()
    }

    mutating func transaction(_ t: ObservedTransaction) {
        beginObject()
        field("currency", t.currency)
        field("expiresDate", t.expiresDate)
        field("inAppOwnershipType", t.inAppOwnershipType)
        field("isUpgraded", t.isUpgraded)
        field("offerType", t.offerType)
        field("originalTransactionId", t.originalTransactionId)
        field("price", t.price)
        field("productId", t.productId)
        field("purchaseDate", t.purchaseDate)
        field("quantity", t.quantity)
        field("revocationDate", t.revocationDate)
        field("revocationReason", t.revocationReason)
        field("transactionId", t.transactionId)
        field("transactionReason", t.transactionReason)
        endObject()
    }

    mutating func server(_ s: ServerExchange) {
        beginObject()
        key("accessQueries")
        beginArray()
        for query in s.accessQueries {
            element()
            beginObject()
            field("access", query.access)
            field("detail", query.detail)
            field("httpStatus", query.httpStatus)
            field("originalTransactionId", query.originalTransactionId)
            field("url", query.url)
            endObject()
        }
        endArray()
        field("appAccess", s.appAccess)
        key("deliveries")
        beginArray()
        for delivery in s.deliveries {
            element()
            beginObject()
            field("account", delivery.account)
            key("attempts")
            beginArray()
            for attempt in delivery.attempts {
                element()
                beginObject()
                field("attemptDate", attempt.attemptDate)
                field("detail", attempt.detail)
                field("httpStatus", attempt.httpStatus)
                field("sendAttemptResult", attempt.sendAttemptResult)
                endObject()
            }
            endArray()
            field("fault", delivery.fault)
            field("notificationType", delivery.notificationType)
            field("notificationUUID", delivery.notificationUUID)
            field("origin", delivery.origin)
            field("signedDate", delivery.signedDate)
            field("signedPayload", delivery.signedPayload)
            field("subtype", delivery.subtype)
            endObject()
        }
        endArray()
        endObject()
    }

    mutating func renewalInfo(_ r: ObservedRenewalInfo) {
        beginObject()
        field("autoRenewProductId", r.autoRenewProductId)
        field("autoRenewStatus", r.autoRenewStatus)
        field("expirationIntent", r.expirationIntent)
        field("gracePeriodExpiresDate", r.gracePeriodExpiresDate)
        field("isInBillingRetryPeriod", r.isInBillingRetryPeriod)
        field("originalTransactionId", r.originalTransactionId)
        field("productId", r.productId)
        field("renewalDate", r.renewalDate)
        endObject()
    }
}
