import MatrixJSON

/// The payloads the App Store signs, as the compact JSON a JWS carries: the bytes `JSONEncoder` with
/// `[.sortedKeys, .withoutEscapingSlashes]` writes for them, written field by field (signing every transaction,
/// renewal info and notification of a run spends much of its time here otherwise). Tests compare both
/// encodings over many payloads.

extension CompactJSONWriter {
    @inlinable mutating func field(_ name: StaticString, _ value: MillisecondsDate?) {
        field(name, value?.milliseconds)
    }
}

extension JWSTransactionDecodedPayload {
    /// The payload of a `signedTransactionInfo` JWS: compact JSON, keys sorted, `nil` fields left out.
    public var compactJSON: [UInt8] {
        var json = CompactJSONWriter(capacity: 1024)
        json.beginObject()
        json.field("appAccountToken", appAccountToken)
        json.field("appTransactionId", appTransactionId)
        json.field("bundleId", bundleId)
        json.field("currency", currency)
        json.field("environment", environment)
        json.field("expiresDate", expiresDate)
        json.field("inAppOwnershipType", inAppOwnershipType)
        json.field("isUpgraded", isUpgraded)
        json.field("offerDiscountType", offerDiscountType)
        json.field("offerIdentifier", offerIdentifier)
        json.field("offerPeriod", offerPeriod)
        json.field("offerType", offerType)
        json.field("originalPurchaseDate", originalPurchaseDate)
        json.field("originalTransactionId", originalTransactionId)
        json.field("price", price)
        json.field("productId", productId)
        json.field("purchaseDate", purchaseDate)
        json.field("quantity", quantity)
        json.field("revocationDate", revocationDate)
        json.field("revocationPercentage", revocationPercentage)
        json.field("revocationReason", revocationReason)
        json.field("revocationType", revocationType)
        json.field("signedDate", signedDate)
        json.field("storefront", storefront)
        json.field("storefrontId", storefrontId)
        json.field("subscriptionGroupIdentifier", subscriptionGroupIdentifier)
        json.field("transactionId", transactionId)
        json.field("transactionReason", transactionReason)
        json.field("type", type)
        json.field("webOrderLineItemId", webOrderLineItemId)
        json.endObject()
        return json.bytes
    }
}

extension JWSRenewalInfoDecodedPayload {
    /// The payload of a `signedRenewalInfo` JWS: compact JSON, keys sorted, `nil` fields left out.
    public var compactJSON: [UInt8] {
        var json = CompactJSONWriter(capacity: 1024)
        json.beginObject()
        json.field("appAccountToken", appAccountToken)
        json.field("appTransactionId", appTransactionId)
        json.field("autoRenewProductId", autoRenewProductId)
        json.field("autoRenewStatus", autoRenewStatus)
        json.field("currency", currency)
        json.field("eligibleWinBackOfferIds", eligibleWinBackOfferIds)
        json.field("environment", environment)
        json.field("expirationIntent", expirationIntent)
        json.field("gracePeriodExpiresDate", gracePeriodExpiresDate)
        json.field("isInBillingRetryPeriod", isInBillingRetryPeriod)
        json.field("offerDiscountType", offerDiscountType)
        json.field("offerIdentifier", offerIdentifier)
        json.field("offerPeriod", offerPeriod)
        json.field("offerType", offerType)
        json.field("originalTransactionId", originalTransactionId)
        json.field("priceIncreaseStatus", priceIncreaseStatus)
        json.field("productId", productId)
        json.field("recentSubscriptionStartDate", recentSubscriptionStartDate)
        json.field("renewalDate", renewalDate)
        json.field("renewalPrice", renewalPrice)
        json.field("signedDate", signedDate)
        json.endObject()
        return json.bytes
    }
}

extension ResponseBodyV2DecodedPayload {
    /// The payload of a notification's `signedPayload` JWS: compact JSON, keys sorted, `nil` fields left out.
    public var compactJSON: [UInt8] {
        var json = CompactJSONWriter(capacity: 1024 + (data?.signedTransactionInfo?.utf8.count ?? 0) + (data?.signedRenewalInfo?.utf8.count ?? 0))
        json.beginObject()
        if let data {
            json.key("data")
            json.beginObject()
            json.field("appAppleId", data.appAppleId)
            json.field("bundleId", data.bundleId)
            json.field("bundleVersion", data.bundleVersion)
            json.field("consumptionRequestReason", data.consumptionRequestReason)
            json.field("environment", data.environment)
            json.field("signedRenewalInfo", data.signedRenewalInfo)
            json.field("signedTransactionInfo", data.signedTransactionInfo)
            json.field("status", data.status)
            json.endObject()
        }
        json.field("notificationType", notificationType)
        json.field("notificationUUID", notificationUUID)
        json.field("signedDate", signedDate)
        json.field("subtype", subtype)
        if let summary {
            json.key("summary")
            json.beginObject()
            json.field("appAppleId", summary.appAppleId)
            json.field("bundleId", summary.bundleId)
            json.field("environment", summary.environment)
            json.field("failedCount", summary.failedCount)
            json.field("productId", summary.productId)
            json.field("requestIdentifier", summary.requestIdentifier)
            json.field("storefrontCountryCodes", summary.storefrontCountryCodes)
            json.field("succeededCount", summary.succeededCount)
            json.endObject()
        }
        json.field("version", version)
        json.endObject()
        return json.bytes
    }
}
