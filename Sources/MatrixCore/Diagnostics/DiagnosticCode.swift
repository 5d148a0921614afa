/// A stable identifier for a kind of problem, `MX` followed by three digits.
///
/// Codes never change meaning once published; editors and CI annotations key on them.
/// `MX0xx` are JSON and matrix problems, `MX1xx` are `.storekit` catalog problems.
public struct DiagnosticCode: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    // MARK: Reading JSON
    /// The bytes are not valid JSON.
    public static let invalidJSON = DiagnosticCode(rawValue: "MX001")
    /// The bytes are not valid UTF-8.
    public static let invalidEncoding = DiagnosticCode(rawValue: "MX002")
    /// Arrays and objects nest deeper than the reader allows.
    public static let nestingTooDeep = DiagnosticCode(rawValue: "MX003")
    /// An object has the same key twice; the last one wins.
    public static let duplicateKey = DiagnosticCode(rawValue: "MX004")
    /// The file is empty.
    public static let emptyInput = DiagnosticCode(rawValue: "MX005")
    /// The file cannot be read at all: missing, a directory or FIFO, no permission, or too large (`validate
    /// --format json` reports it as a row; other commands stop with exit 66).
    public static let unreadableInput = DiagnosticCode(rawValue: "MX006")

    // MARK: Matrix structure
    /// A value has the wrong JSON type.
    public static let wrongType = DiagnosticCode(rawValue: "MX010")
    /// A required field is missing.
    public static let missingField = DiagnosticCode(rawValue: "MX011")
    /// A key the format does not define (a warning: it is ignored).
    public static let unknownKey = DiagnosticCode(rawValue: "MX012")
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
    /// A value outside the allowed set (an unknown purchase result, kind, state…).
    public static let invalidValue = DiagnosticCode(rawValue: "MX019")
    /// `schemaVersion` is not one this version of `matrix` reads.
    public static let unsupportedSchemaVersion = DiagnosticCode(rawValue: "MX020")
    /// A field that the step's action does not take, or a field the action needs that is missing.
    public static let invalidStep = DiagnosticCode(rawValue: "MX021")
    /// A product is used in a way its type does not allow (e.g. renewing a consumable).
    public static let productTypeMismatch = DiagnosticCode(rawValue: "MX022")
    /// A case has no steps, or a matrix has no cases.
    public static let emptyCollection = DiagnosticCode(rawValue: "MX023")

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
