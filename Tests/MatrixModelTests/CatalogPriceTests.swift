import Testing
import MatrixJSON
import MatrixModel

/// A `displayPrice` is a number of the storefront's currency: what is not one is a located catalog error, never
/// a product that the simulator signs at a price of 0.
@Suite("Catalog prices")
struct CatalogPriceTests {
    static func catalog(productPrice: String, offerPrice: String = #""1.99""#) -> [UInt8] {
        Array("""
            {"identifier": "C", "settings": {}, "products": [
              {"productID": "p", "type": "NonConsumable", "displayPrice": \(productPrice)}],
             "subscriptionGroups": [{"id": "G", "name": "g", "subscriptions": [
              {"productID": "s", "type": "RecurringSubscription", "recurringSubscriptionPeriod": "P1M", "displayPrice": "4.99",
               "groupNumber": 1, "introductoryOffer": {"paymentMode": "payUpFront", "subscriptionPeriod": "P1M", "displayPrice": \(offerPrice)}}]}],
             "version": {"major": 3, "minor": 0}}
            """.utf8)
    }

    @Test("NaN, infinity, negative, 1e30, hundreds of digits and symbols are located errors (MX102)", arguments: [
        #""NaN""#, #""Infinity""#, #""-1""#, #""1e30""#, #""4.99€""#, #""1,000""#, #"" ""#, #""""#, "-1", "1e30", "true",
        "\"" + String(repeating: "9", count: 300) + "\"", "\"0." + String(repeating: "9", count: 300) + "\"",
    ])
    func invalid(price: String) throws {
        let (configuration, diagnostics) = StoreKitConfigurationReader.read(Self.catalog(productPrice: price), file: "Products.storekit")
        #expect(configuration == nil)
        let error = try #require(diagnostics.first { $0.severity == .error }, "\(price) was accepted as a price")
        #expect(error.code == .invalidCatalogEntry)
        #expect(error.pointer == "/products/0/displayPrice")
        #expect(error.location.line == 2)
        #expect(error.message.hasPrefix("displayPrice"), "\(error.message)")
        #expect(error.message.utf8.count < 200, "a long price is shortened in the message")
    }

    @Test("An offer's price is checked the same way")
    func offer() throws {
        let (configuration, diagnostics) = StoreKitConfigurationReader.read(Self.catalog(productPrice: #""0.99""#, offerPrice: #""-0.99""#),
                                                                         file: "Products.storekit")
        #expect(configuration == nil)
        #expect(diagnostics.contains { $0.pointer == "/subscriptionGroups/0/subscriptions/0/introductoryOffer/displayPrice" })
    }

    @Test("Prices as Xcode writes them, strings or numbers, read as before", arguments: [
        (#""0.99""#, 990), (#""79""#, 79_000), (#""0.00""#, 0), (#"" 4.99 ""#, 4990), ("1.5", 1500), (#""999999999.9999""#, 999_999_999_999 + 1),
    ])
    func valid(price: String, milliunits: Int64) throws {
        let (configuration, diagnostics) = StoreKitConfigurationReader.read(Self.catalog(productPrice: price), file: "Products.storekit")
        #expect(diagnostics.filter { $0.severity == .error }.isEmpty, "\(diagnostics.map(\.rendered))")
        #expect(try #require(configuration).products.first { $0.productID == "p" }?.priceMilliunits == milliunits)
    }
}
