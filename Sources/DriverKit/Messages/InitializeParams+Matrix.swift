import MatrixModel

extension InitializeParams {
    /// The params describing `matrix`, with the files it was loaded from.
    ///
    /// - Parameters:
    ///   - matrixPath: the path the user named, if any.
    ///   - matrixSource: the matrix file's text, as read.
    ///   - catalogSource: the `.storekit` file's text, as read (`nil` for an inline catalog).
    ///   - runner: the calling program's name and version.
    public init(matrix: Matrix, matrixPath: String?, matrixSource: String?, catalogSource: String?, runner: Runner) {
        let catalog = matrix.catalog
        let products = catalog.products.map { product in
            Product(productId: product.productID, type: product.type.storeKitName, referenceName: product.referenceName,
                    displayName: product.displayName, displayPrice: product.displayPrice, priceMilliunits: product.priceMilliunits,
                    familyShareable: product.familyShareable, subscriptionGroupId: product.subscriptionGroupID,
                    groupNumber: product.groupNumber, subscriptionPeriod: product.recurringSubscriptionPeriod?.description)
        }
        self.init(
            runner: runner,
            matrix: MatrixFile(name: matrix.name, path: matrixPath, source: matrixSource, app: matrix.app),
            catalog: Catalog(path: matrix.catalogPath, source: catalogSource, products: products,
                             subscriptionGroups: catalog.subscriptionGroups.map { SubscriptionGroup(id: $0.id, name: $0.name, productIds: $0.productIDs) }),
            tiers: matrix.tiers, consumables: matrix.consumables, nonRenewing: matrix.nonRenewing, accounts: matrix.accounts,
            cases: matrix.cases.map { CaseSummary(id: $0.id, kind: $0.kind, account: $0.account, stepCount: $0.steps.count) })
    }

    /// Rebuilds the matrix from the sources, with the loader `matrix run` used.
    ///
    /// - Throws: ``DriverError`` (`invalidParams`) when there is no matrix source, or the sources do not load;
    ///   the message lists the diagnostics.
    public func loadMatrix() throws(DriverError) -> Matrix {
        guard let source = matrix.source else {
            throw DriverError(code: DriverError.invalidParams, message: "initialize carries no matrix source to rebuild the matrix from")
        }
        let catalogSource = catalog.source
        let file = matrix.path ?? "matrix.json"
        let result = MatrixLoader.load(Array(source.utf8), file: file) { path in
            guard let catalogSource else { return .unreadable(reason: "\(path): initialize carries no catalog source") }
            return .contents(Array(catalogSource.utf8), displayPath: path)
        }
        guard let loaded = result.matrix else {
            let errors = result.diagnostics.filter { $0.severity == .error }.map(\.rendered)
            throw DriverError(code: DriverError.invalidParams,
                              message: "the matrix in initialize does not load: " + errors.prefix(5).joined(separator: "; "))
        }
        return loaded
    }
}
