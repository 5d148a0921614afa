import MatrixJSON

/// The codes of matrix and catalog problems; the JSON layer defines those of reading JSON and its structure.
extension DiagnosticCode {
    // MARK: Matrix
    /// A product identifier that is not in the catalog.
    public static let unknownProduct = DiagnosticCode(rawValue: "MX013")
    /// A tier name that `tiers` does not define.
    public static let unknownTier = DiagnosticCode(rawValue: "MX014")
    /// An account alias that `accounts` does not define.
    public static let unknownAccount = DiagnosticCode(rawValue: "MX015")
    /// An action the format does not define.
    public static let unknownAction = DiagnosticCode(rawValue: "MX016")
    /// Two cases share an `id`.
    public static let duplicateCaseID = DiagnosticCode(rawValue: "MX017")
    /// A string that is not an ISO 8601 duration such as `P1M` or `P3DT12H`.
    public static let invalidDuration = DiagnosticCode(rawValue: "MX018")
    /// `schemaVersion` is not one this version of `matrix` reads.
    public static let unsupportedSchemaVersion = DiagnosticCode(rawValue: "MX020")
    /// A field that the step's action does not take, or a field the action needs that is missing.
    public static let invalidStep = DiagnosticCode(rawValue: "MX021")
    /// A product is used in a way its type does not allow (e.g. renewing a consumable).
    public static let productTypeMismatch = DiagnosticCode(rawValue: "MX022")
    /// A case has no steps, or a matrix has no cases.
    public static let emptyCollection = DiagnosticCode(rawValue: "MX023")
    /// A warning: a catalog product in no tier and no case, or a tier no case expects (no run tests it).
    public static let uncovered = DiagnosticCode(rawValue: "MX024")

    // MARK: Catalog
    /// The catalog file named by the matrix is missing, unreadable, a directory or empty.
    public static let catalogUnreadable = DiagnosticCode(rawValue: "MX100")
    /// The catalog file is JSON but not a StoreKit configuration.
    public static let notStoreKitConfiguration = DiagnosticCode(rawValue: "MX101")
    /// A catalog entry is malformed (missing product ID, unknown type, bad period…).
    public static let invalidCatalogEntry = DiagnosticCode(rawValue: "MX102")
    /// Two catalog entries share a product ID.
    public static let duplicateProductID = DiagnosticCode(rawValue: "MX103")
}
