import MatrixJSON

/// Loads a matrix from bytes, reporting every problem at once with file, line, column and JSON Pointer.
///
/// The loader does no I/O: the catalog a matrix names is read through the `readCatalog` closure the caller
/// supplies. A matrix with any error yields no ``Matrix``.
public enum MatrixLoader {
    /// What the caller found at a catalog path.
    public enum CatalogFile: Sendable {
        /// The file's bytes, and the path to show in diagnostics.
        case contents([UInt8], displayPath: String)
        /// The file could not be read; `reason` says why ("no such file", "is a directory"…).
        case unreadable(reason: String)
    }

    /// The outcome of loading: the matrix when there was no error, and every diagnostic.
    public struct Result: Sendable {
        public var matrix: Matrix?
        public var diagnostics: [Diagnostic]
    }

    /// Loads a matrix.
    ///
    /// - Parameters:
    ///   - bytes: the matrix file, UTF-8 JSON.
    ///   - file: the matrix path as the user named it, for diagnostics.
    ///   - checksCoverage: also warn (MX024) about a catalog product in no tier and no case, and a tier no case
    ///     expects, when the matrix has no error (`matrix validate` asks for it).
    ///   - readCatalog: reads the catalog path written in the matrix (relative to the matrix file).
    public static func load(_ bytes: some Collection<UInt8>, file: String?, checksCoverage: Bool = false,
                            readCatalog: (String) -> CatalogFile) -> Result {
        let document = JSONReader.read(bytes, file: file)
        guard let root = document.value else { return Result(matrix: nil, diagnostics: document.diagnostics.sortedByLocation) }
        let sink = DiagnosticCollector(file: file)
        sink.append(contentsOf: document.diagnostics)
        // An absurdly long value is not decoded: messages would quote it, and evidence would copy it everywhere.
        JSONTextLimit.check(root, sink)
        if sink.hasErrors {
            sink.finish()
            return Result(matrix: nil, diagnostics: sink.diagnostics.sortedByLocation)
        }
        var decoder = MatrixDecoder(sink: sink)
        decoder.checksCoverage = checksCoverage
        let matrix = decoder.decode(JSONField(root, pointer: ""), readCatalog: readCatalog)
        sink.finish()
        let catalogDiagnostics = decoder.catalogDiagnostics
        let diagnostics = sink.diagnostics + catalogDiagnostics
        return Result(matrix: diagnostics.hasErrors ? nil : matrix, diagnostics: diagnostics.sortedByLocation)
    }
}

/// The hand-written decoder behind ``MatrixLoader``: decodes and validates in one pass over the tree.
///
/// Cases are decoded in parallel by copies of the decoder, each with a collector of its own, after the sections
/// they are checked against (catalog, tiers, accounts) are decoded.
struct MatrixDecoder: Sendable {
    var sink: DiagnosticCollector
    var catalogDiagnostics: [Diagnostic] = []
    var catalog = StoreKitConfiguration()
    var catalogKnown = false
    /// Tier names, or `nil` when `tiers` is missing or malformed (so tier names are not checked again).
    var tierNames: [String]?
    var balanceNames: Set<String> = []
    /// Account aliases, or `nil` when `accounts` is missing or malformed (so aliases are not checked again).
    var accountAliases: [String]?
    /// Whether to warn about products and tiers no case tests (``checkCoverage(_:catalogField:tiersField:)``).
    var checksCoverage = false
    /// The matrix-wide store clock, when `store.clock` names one.
    var matrixClock: String?
    /// Whether the case being decoded runs on StoreKit Testing in Xcode's clock, which sends no App Store Server
    /// Notifications (an expectation of some is a warning).
    var caseOnXcodeClock = false

    init(sink: DiagnosticCollector) {
        self.sink = sink
    }

    mutating func decode(_ root: JSONField, readCatalog: (String) -> MatrixLoader.CatalogFile) -> Matrix? {
        if let object = root.value.objectValue, object["schemaVersion"] == nil, object["version"] != nil,
           object["products"] != nil || object["subscriptionGroups"] != nil {
            sink.error(.missingField, "this is a StoreKit configuration (.storekit), not a matrix", pointer: "", at: root.location,
                       hint: "write a matrix for it with `matrix init --catalog \(sink.file ?? "FILE")`, then name it in the matrix's \"catalog\"")
            return nil
        }
        var fields = ObjectFields(root, sink)
        guard fields.isObject else { return nil }
        fields.ignore("$schema", "description")

        if let versionField = fields.required("schemaVersion", "the format version; write 1") {
            if let version = versionField.int(sink), version != Matrix.supportedSchemaVersion {
                sink.error(.unsupportedSchemaVersion, "schemaVersion \(version) is not supported",
                           pointer: versionField.pointer, at: versionField.location,
                           hint: "this version of matrix reads schemaVersion \(Matrix.supportedSchemaVersion)")
            }
        }
        let name = fields.optional("name")?.string(sink) ?? "matrix"
        var app = AppInfo(bundleId: "")
        if let appField = fields.required("app", "an object with \"bundleId\"") {
            app = decodeApp(appField)
        }
        var catalogPath: String?
        let catalogField = fields.required("catalog", "a path to a .storekit file, or an inline product list")
        if let catalogField {
            catalogPath = decodeCatalog(catalogField, readCatalog: readCatalog)
        }
        var tiers: [Tier] = []
        if let tiersField = fields.required("tiers", "tier names mapped to the product IDs that grant them") {
            tiers = decodeTiers(tiersField)
            if tiersField.value.objectValue != nil { tierNames = tiers.map(\.name) }
        }
        let consumables = fields.optional("consumables").map(decodeConsumables) ?? [:]
        balanceNames = Set(consumables.values.map(\.balance))
        let nonRenewingField = fields.optional("nonRenewing")
        let nonRenewing = nonRenewingField.map(decodeNonRenewing) ?? [:]
        checkNonRenewingDurations(tiers: tiers, declared: Set(nonRenewingField?.value.objectValue?.keys ?? []),
                                  tiersField: fields.optional("tiers"))
        var accounts: [Account] = []
        if let accountsField = fields.required("accounts", "test account aliases") {
            accounts = decodeAccounts(accountsField)
            if accountsField.value.objectValue != nil { accountAliases = accounts.map(\.alias) }
        }
        let store = fields.optional("store").map(decodeStoreSettings) ?? StoreSettings()
        matrixClock = store.clock
        var cases: [MatrixCase] = []
        if let casesField = fields.required("cases", "an array of cases") {
            cases = decodeCases(casesField)
        }
        let profiles = fields.optional("profiles").map { decodeProfiles($0, cases: cases) } ?? []
        fields.finish()
        let matrix = Matrix(name: name, app: app, catalogPath: catalogPath, catalog: catalog, tiers: tiers, consumables: consumables,
                            nonRenewing: nonRenewing, accounts: accounts, store: store, cases: cases, profiles: profiles)
        if checksCoverage, !(sink.diagnostics + catalogDiagnostics).hasErrors {
            checkCoverage(matrix, catalogField: catalogField, tiersField: root.value.objectValue?["tiers"].map { JSONField($0, pointer: "/tiers") })
        }
        return matrix
    }

    // MARK: Top-level sections

    func decodeApp(_ field: JSONField) -> AppInfo {
        var fields = ObjectFields(field, sink)
        var app = AppInfo(bundleId: "")
        if let bundleField = fields.required("bundleId", "e.g. com.example.myapp"), let bundle = bundleField.string(sink) {
            if bundle.isEmpty {
                sink.error(.invalidValue, "bundleId is empty", pointer: bundleField.pointer, at: bundleField.location)
            }
            app.bundleId = bundle
        }
        if let id = fields.optional("appAppleId")?.int(sink, in: 1...Int.max) {
            app.appAppleId = Int64(id)
        }
        app.bundleIdGuessed = fields.optional("bundleIdGuessed")?.bool(sink) ?? false
        fields.finish()
        return app
    }

    /// Reads the catalog (path or inline object) into `catalog`; returns the path when one was given.
    mutating func decodeCatalog(_ field: JSONField, readCatalog: (String) -> MatrixLoader.CatalogFile) -> String? {
        if field.value.objectValue != nil {
            let inline = DiagnosticCollector(file: sink.file)
            if let configuration = StoreKitConfigurationReader.decode(field, inline, requireVersion: false) {
                catalog = configuration
                catalogKnown = !inline.hasErrors
            }
            inline.finish()
            sink.append(contentsOf: inline.diagnostics)
            return nil
        }
        guard let path = field.string(sink) else { return nil }
        // Only a relative path needs the reminder of what it is relative to.
        let hint = path.hasPrefix("/") ? nil : "the catalog path is relative to the matrix file"
        guard !path.isEmpty else {
            sink.error(.catalogUnreadable, "the catalog path is empty", pointer: field.pointer, at: field.location, hint: hint)
            return nil
        }
        switch readCatalog(path) {
        case .unreadable(let reason):
            sink.error(.catalogUnreadable, "cannot read catalog \"\(path)\": \(reason)", pointer: field.pointer, at: field.location, hint: hint)
        case .contents(let bytes, let displayPath):
            let (configuration, diagnostics) = StoreKitConfigurationReader.read(bytes, file: displayPath)
            catalogDiagnostics = diagnostics
            if let configuration {
                catalog = configuration
                catalogKnown = true
            } else {
                sink.error(.catalogUnreadable, "catalog \"\(path)\" is not a usable StoreKit configuration (see the errors in \(displayPath))",
                           pointer: field.pointer, at: field.location)
            }
        }
        return path
    }

    func decodeTiers(_ field: JSONField) -> [Tier] {
        guard let members = field.members(sink) else { return [] }
        var tiers: [Tier] = []
        for member in members {
            if member.key.isEmpty {
                sink.error(.invalidValue, "a tier name is empty", pointer: member.field.pointer, at: member.keyLocation)
            }
            let products = (member.field.strings(sink) ?? []).compactMap { productID, element -> String? in
                guard checkProduct(productID, element) else { return nil }
                // Transaction.currentEntitlements never holds a consumable, so it cannot grant access.
                if catalog.product(productID)?.type == .consumable {
                    sink.error(.productTypeMismatch, "consumable \"\(productID)\" cannot grant tier \"\(member.key)\"",
                               pointer: element.pointer, at: element.location,
                               hint: "StoreKit's current entitlements never include consumables; list it under \"consumables\" with the balance it credits")
                }
                return productID
            }
            tiers.append(Tier(name: member.key, productIDs: products))
        }
        return tiers
    }

    func decodeConsumables(_ field: JSONField) -> [String: ConsumableSpec] {
        guard let members = field.members(sink) else { return [:] }
        var result: [String: ConsumableSpec] = [:]
        for member in members {
            let keyField = JSONField(member.field.value, pointer: member.field.pointer)
            _ = checkProduct(member.key, keyField, at: member.keyLocation, type: .consumable)
            var fields = ObjectFields(member.field, sink)
            let balance = fields.required("balance", "the name of the balance credited, e.g. coins")?.string(sink) ?? ""
            let amount = fields.required("amount", "how much one purchase credits")?.int(sink, in: 1...1_000_000_000) ?? 0
            fields.finish()
            result[member.key] = ConsumableSpec(balance: balance, amount: amount)
        }
        return result
    }

    func decodeNonRenewing(_ field: JSONField) -> [String: NonRenewingSpec] {
        guard let members = field.members(sink) else { return [:] }
        var result: [String: NonRenewingSpec] = [:]
        for member in members {
            _ = checkProduct(member.key, member.field, at: member.keyLocation, type: .nonRenewable)
            var fields = ObjectFields(member.field, sink)
            if let durationField = fields.required("duration", "an ISO 8601 duration such as P1Y"),
               let duration = decodeDuration(durationField, nonZero: "a non-renewing subscription") {
                result[member.key] = NonRenewingSpec(duration: duration)
            }
            fields.finish()
        }
        return result
    }

    /// Reports non-renewing products that grant a tier but are not `declared` under `nonRenewing` (an entry
    /// whose duration is wrong is reported where it is written).
    func checkNonRenewingDurations(tiers: [Tier], declared: Set<String>, tiersField: JSONField?) {
        guard let tiersField else { return }
        for tier in tiers {
            for productID in tier.productIDs where catalog.product(productID)?.type == .nonRenewable && !declared.contains(productID) {
                let pointer = JSONPointer.append(tiersField.pointer, tier.name)
                let location = tiersField.value.objectValue?[tier.name]?.location ?? tiersField.location
                sink.error(.missingField, "non-renewing subscription \"\(productID)\" grants tier \"\(tier.name)\" but has no duration",
                           pointer: pointer, at: location,
                           hint: "StoreKit gives non-renewing subscriptions no expiration date; add \"nonRenewing\": {\"\(productID)\": {\"duration\": \"P1Y\"}}")
            }
        }
    }

    func decodeAccounts(_ field: JSONField) -> [Account] {
        guard let members = field.members(sink) else { return [] }
        let aliases = Set(members.map(\.key))
        var accounts: [Account] = []
        for member in members {
            var fields = ObjectFields(member.field, sink)
            var account = Account(alias: member.key)
            account.description = fields.optional("description")?.string(sink)
            for (productID, element) in fields.optional("owns")?.strings(sink) ?? [] {
                if checkProduct(productID, element) {
                    if catalog.product(productID)?.type == .consumable {
                        sink.error(.productTypeMismatch, "an account cannot own consumable \"\(productID)\"",
                                   pointer: element.pointer, at: element.location, hint: "a consumable is used up once delivered; to start with a balance, begin the case with a purchase step of it")
                    }
                    account.owns.append(productID)
                }
            }
            if let organizerField = fields.optional("familyOrganizer"), let organizer = organizerField.string(sink) {
                if !aliases.contains(organizer) || organizer == member.key {
                    sink.error(.unknownAccount, organizer == member.key ? "an account cannot be its own family organizer"
                                                                         : "unknown account \"\(organizer)\"",
                               pointer: organizerField.pointer, at: organizerField.location,
                               hint: Suggestion.didYouMean(organizer, among: aliases))
                }
                account.familyOrganizer = organizer
            }
            fields.finish()
            accounts.append(account)
        }
        // A Family Sharing organizer is not a member of another family: no chains, no cycles.
        let organizers = Dictionary(accounts.compactMap { account in account.familyOrganizer.map { (account.alias, $0) } },
                                    uniquingKeysWith: { first, _ in first })
        for member in members {
            guard let organizer = organizers[member.key], organizer != member.key, let organizersOwn = organizers[organizer],
                  let field = member.field.value.objectValue?["familyOrganizer"] else { continue }
            sink.error(.invalidValue, "\"\(organizer)\" is itself a family member (of \"\(organizersOwn)\"), so it cannot organize a family",
                       pointer: JSONPointer.append(member.field.pointer, "familyOrganizer"), at: field.location,
                       hint: "a family has one organizer and members; give \"\(member.key)\" an organizer without a familyOrganizer")
        }
        return accounts
    }

    func decodeStoreSettings(_ field: JSONField) -> StoreSettings {
        var fields = ObjectFields(field, sink)
        var settings = StoreSettings()
        settings.askToBuy = fields.optional("askToBuy")?.bool(sink)
        if let grace = fields.optional("gracePeriodDays"), let days = grace.int(sink) {
            if [0, 3, 16, 28].contains(days) {
                settings.gracePeriodDays = days
            } else {
                sink.error(.invalidValue, "gracePeriodDays must be 0 (off), 3, 16 or 28", pointer: grace.pointer, at: grace.location,
                           hint: "App Store Connect offers billing grace periods of 3, 16 or 28 days")
            }
        }
        if let storefrontField = fields.optional("storefront"), let storefront = storefrontField.string(sink) {
            checkStorefront(storefront, storefrontField, at: storefrontField.location)
            settings.storefront = storefront
        }
        if let clockField = fields.optional("clock"), let clock = clockField.string(sink) {
            if case .failure(let problem) = RenewalSchedule.parse(clock, storeKitTimeRate: nil) {
                sink.error(.invalidValue, problem.message, pointer: clockField.pointer, at: clockField.location)
            }
            settings.clock = clock
        }
        fields.finish()
        return settings
    }

    // MARK: Cases

    /// Decodes the cases on every core (each case is checked against the sections decoded before it, which no
    /// case changes), then checks their ids are unique.
    func decodeCases(_ field: JSONField) -> [MatrixCase] {
        guard let elements = field.array(sink) else { return [] }
        if elements.isEmpty {
            sink.error(.emptyCollection, "the matrix has no cases", pointer: field.pointer, at: field.location)
        }
        // In batches, in order: once the collector is full the cases left are not decoded, and which problems are
        // kept does not depend on which core decoded which case.
        var decoded: [(MatrixCase?, [Diagnostic])] = []
        let batch = 256
        var start = 0
        while start < elements.count, !sink.isFull {
            let slice = Array(elements[start..<Swift.min(elements.count, start + batch)])
            let results = slice.concurrentMap { element in
                var decoder = self
                decoder.sink = DiagnosticCollector(file: sink.file, limit: sink.limit)
                return (decoder.decodeCase(element), decoder.sink.diagnostics)
            }
            for result in results { sink.append(contentsOf: result.1) }
            decoded += results.map { ($0.0, []) }
            start += slice.count
        }
        var seen: [String: SourceLocation] = [:]
        var cases: [MatrixCase] = []
        for (element, (decodedCase, diagnostics)) in zip(elements, decoded) {
            sink.append(contentsOf: diagnostics)
            guard let matrixCase = decodedCase else { continue }
            cases.append(matrixCase)
            // A case without an id string is reported as such, not as a duplicate of another.
            guard let idField = element.value.objectValue?["id"], idField.stringValue != nil else { continue }
            if let first = seen[matrixCase.id] {
                sink.error(.duplicateCaseID, "duplicate case id \"\(matrixCase.id)\"", pointer: JSONPointer.append(element.pointer, "id"),
                           at: idField.location, hint: "first used at line \(first.line); case ids must be unique")
            } else {
                seen[matrixCase.id] = idField.location
            }
        }
        return cases
    }

    func decodeCase(_ field: JSONField) -> MatrixCase? {
        var fields = ObjectFields(field, sink)
        guard fields.isObject else { return nil }
        let id = fields.required("id", "a unique name such as fresh-purchase/pro")?.string(sink) ?? ""
        var kind = ""
        if let kindField = fields.required("kind", "e.g. fresh-purchase, refund, renewal"), let text = kindField.string(sink) {
            kind = text
            if !MatrixCase.knownKinds.contains(text) {
                sink.warning(.invalidValue, "case kind \"\(text)\" is not one the documentation names",
                             pointer: kindField.pointer, at: kindField.location,
                             hint: Suggestion.didYouMean(text, among: MatrixCase.knownKinds))
            }
        }
        var account = ""
        if let accountField = fields.required("account", "an alias from \"accounts\""), let alias = accountField.string(sink) {
            account = alias
            checkAccount(alias, accountField)
        }
        let description = fields.optional("description")?.string(sink)
        let tags = fields.optional("tags").map(decodeTags) ?? []
        let store = fields.optional("store").map(decodeStoreSettings) ?? StoreSettings()
        var steps: [Step] = []
        var stepDecoder = self
        stepDecoder.caseOnXcodeClock = RenewalSchedule.environment(ofClock: store.clock ?? matrixClock) == .xcode
        if let stepsField = fields.required("steps", "an array of steps"), let elements = stepsField.array(sink) {
            if elements.isEmpty {
                sink.error(.emptyCollection, "case \"\(id)\" has no steps", pointer: stepsField.pointer, at: stepsField.location)
            }
            // A case with more problems than are reported is not read to its end.
            steps = elements.compactMap { sink.isFull ? nil : stepDecoder.decodeStep($0) }
        }
        fields.finish()
        return MatrixCase(id: id, kind: kind, account: account, description: description, tags: tags, store: store, steps: steps)
    }

    func checkAccount(_ alias: String, _ field: JSONField) {
        guard let accountAliases, !accountAliases.contains(alias) else { return }
        sink.error(.unknownAccount, "unknown account \"\(alias)\"", pointer: field.pointer, at: field.location,
                   hint: Suggestion.didYouMean(alias, among: accountAliases) ?? "define it under \"accounts\"")
    }

    /// Reports an unknown product (with a suggestion) or a product of the wrong type; returns whether it is known.
    @discardableResult
    func checkProduct(_ productID: String, _ field: JSONField, at location: SourceLocation? = nil, type: ProductType? = nil) -> Bool {
        guard catalogKnown else { return true }
        guard let product = catalog.product(productID) else {
            // A tier's name where a product ID belongs is a likelier mistake than a typo of some product ID.
            let tierHint = tierNames?.contains(productID) == true
                ? "\"\(productID)\" is a tier, not a product: name a product ID here, or check the tier with \"access\"" : nil
            sink.error(.unknownProduct, "unknown product \"\(productID)\"", pointer: field.pointer, at: location ?? field.location,
                       hint: tierHint ?? Suggestion.didYouMean(productID, among: catalog.products.map(\.productID)) ?? "the catalog has no product with this ID")
            return false
        }
        if let type, product.type != type {
            sink.error(.productTypeMismatch, "product \"\(productID)\" is \(product.type.storeKitName), not \(type.storeKitName)",
                       pointer: field.pointer, at: location ?? field.location)
            return false
        }
        return true
    }

    /// Reports a storefront the store does not know: data would otherwise be signed as another storefront's.
    func checkStorefront(_ storefront: String, _ field: JSONField, at location: SourceLocation) {
        guard AppStoreStorefront.named(storefront) == nil else { return }
        sink.error(.invalidValue, "unknown storefront \"\(storefront)\"", pointer: field.pointer, at: location,
                   hint: Suggestion.didYouMean(storefront.uppercased(), among: AppStoreStorefront.countryCodes)
                       ?? "write an ISO 3166-1 alpha-3 code of an App Store storefront, e.g. USA, GBR, FRA, DEU, JPN")
    }

    /// An ISO 8601 duration; `P0D` and other zero durations are durations too, refused only where nothing can
    /// last zero (`nonZero`, naming what).
    func decodeDuration(_ field: JSONField, nonZero: String? = nil) -> ISO8601Duration? {
        guard let text = field.string(sink) else { return nil }
        guard let duration = ISO8601Duration(text) else {
            sink.error(.invalidDuration, "\"\(text)\" is not an ISO 8601 duration", pointer: field.pointer, at: field.location,
                       hint: "write durations like P1W, P1M, P1Y, P3D or PT12H")
            return nil
        }
        if let nonZero, duration.isZero {
            sink.error(.invalidDuration, "\(nonZero) cannot last \(text)", pointer: field.pointer, at: field.location,
                       hint: "give the duration the app grants, such as P1M or P1Y")
            return nil
        }
        return duration
    }
}
