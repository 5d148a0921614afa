/// An App Store storefront the simulated store can sell in: its ISO 3166-1 alpha-3 country code, the App Store's
/// storefront identifier, and the currency prices are charged in.
///
/// A catalog's `_storefront` and a matrix's `store.storefront` must name one of these: a storefront the table does
/// not know is an error where it is written, never data signed as the United States storefront.
/// Apple: https://developer.apple.com/documentation/storekit/storefront,
/// https://developer.apple.com/documentation/appstoreserverapi/storefront
public struct AppStoreStorefront: Sendable, Hashable {
    /// ISO 3166-1 alpha-3, e.g. `USA`.
    public var countryCode: String
    /// The App Store's storefront identifier, e.g. `143441`.
    public var id: String
    /// ISO 4217 code of the storefront's currency, e.g. `USD`.
    public var currency: String

    public init(countryCode: String, id: String, currency: String) {
        self.countryCode = countryCode
        self.id = id
        self.currency = currency
    }

    /// A price as the catalog writes it (`"4.99"`) the way the simulated StoreKit shows it in this storefront
    /// (`Product.displayPrice`): the currency's symbol before the price for USD, EUR, GBP, JPY, CAD and AUD
    /// (`$4.99`, `€4.99`, `£4.99`), else the price and the ISO 4217 code (`4.99 CNY`). StoreKit formats for the
    /// device's locale; this fixed form is the simulator's, so that expectations can name it.
    /// Apple: https://developer.apple.com/documentation/storekit/product/displayprice
    public func displayPrice(_ price: String) -> String {
        Self.symbols[currency].map { $0 + price } ?? "\(price) \(currency)"
    }

    static let symbols = ["USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "CAD": "CA$", "AUD": "A$"]

    /// The storefront with `countryCode`, if the table knows it.
    public static func named(_ countryCode: String) -> AppStoreStorefront? {
        byCountryCode[countryCode]
    }

    /// The storefronts the table knows, by country code.
    public static let byCountryCode: [String: AppStoreStorefront] = Dictionary(uniqueKeysWithValues: rows.map {
        ($0.0, AppStoreStorefront(countryCode: $0.0, id: $0.2, currency: $0.1))
    })

    /// Every known country code, sorted (for "did you mean" hints).
    public static let countryCodes: [String] = rows.map(\.0).sorted()

    /// The United States storefront, the default when neither the catalog nor the matrix names one.
    public static let unitedStates = AppStoreStorefront(countryCode: "USA", id: "143441", currency: "USD")

    private static let rows: [(String, String, String)] = [
        ("USA", "USD", "143441"), ("FRA", "EUR", "143442"), ("DEU", "EUR", "143443"), ("GBR", "GBP", "143444"),
        ("AUT", "EUR", "143445"), ("BEL", "EUR", "143446"), ("FIN", "EUR", "143447"), ("GRC", "EUR", "143448"),
        ("IRL", "EUR", "143449"), ("ITA", "EUR", "143450"), ("LUX", "EUR", "143451"), ("NLD", "EUR", "143452"),
        ("PRT", "EUR", "143453"), ("ESP", "EUR", "143454"), ("CAN", "CAD", "143455"), ("SWE", "SEK", "143456"),
        ("NOR", "NOK", "143457"), ("DNK", "DKK", "143458"), ("CHE", "CHF", "143459"), ("AUS", "AUD", "143460"),
        ("NZL", "NZD", "143461"), ("JPN", "JPY", "143462"), ("HKG", "HKD", "143463"), ("SGP", "SGD", "143464"),
        ("CHN", "CNY", "143465"), ("KOR", "KRW", "143466"), ("IND", "INR", "143467"), ("MEX", "MXN", "143468"),
        ("RUS", "RUB", "143469"), ("TWN", "TWD", "143470"), ("BRA", "BRL", "143503"), ("COL", "COP", "143501"),
        ("TUR", "TRY", "143480"), ("POL", "PLN", "143478"), ("ISR", "ILS", "143491"), ("ZAF", "ZAR", "143472"),
    ]
}
