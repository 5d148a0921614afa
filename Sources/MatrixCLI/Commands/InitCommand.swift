import Foundation
import MatrixAuthoring
import MatrixJSON
import MatrixModel

/// `matrix init --catalog FILE.storekit`: writes a complete acceptance matrix for a StoreKit configuration;
/// `matrix init --update MATRIX` adds to an edited matrix the cases of catalog products it does not test yet.
struct InitCommand {
    let console: Console

    static let spec = CommandSpec(
        ["init"], summary: "Write a complete acceptance matrix for a .storekit file",
        usage: ["--catalog FILE.storekit [--out FILE] [--bundle-id ID] [--name NAME] [--force]", "--update MATRIX [--out FILE]"],
        discussion: """
            Writes a complete acceptance matrix for the products of a StoreKit configuration file: tiers from the \
            subscription groups, non-consumables and non-renewing subscriptions, one account per case, and for every \
            product the cases its type needs (see docs/matrix-init.md). The matrix passes on the local environment \
            and catches every known app fault the catalog can show (`matrix score`). Check the notes printed on \
            stderr: durations of non-renewing subscriptions and consumable amounts are read from product names.

            --out FILE never replaces an existing file unless --force is given; the catalog path and $schema in the \
            matrix are written relative to FILE. Without --out (or with --out -) the matrix goes to stdout, with \
            those paths relative to the current directory: save it there, or use --out.

            --update MATRIX adds to a matrix you have edited what init would write for the catalog products it does \
            not test yet (in no tier, no consumables entry and no case, as `matrix validate` warns): their tiers, \
            consumables and non-renewing entries, accounts and cases, appended to the sections they belong to. Every \
            other byte of MATRIX is kept. MATRIX is rewritten in place unless --out names another file.
            Exit status: 0 written, 64 usage (including an existing --out without --force), 65 the catalog is not \
            a usable StoreKit configuration, 66 the catalog cannot be read, 74 the matrix cannot be written.
            """,
        options: [
            .value(.catalog, "FILE", "the StoreKit configuration file (.storekit) to write cases for"),
            .value(.update, "MATRIX", "add cases for the catalog products MATRIX does not test yet, keeping the rest"),
            .value(.out, "FILE", "where to write the matrix; - for stdout (default)"),
            .value(.bundleId, "ID", "app.bundleId (default: guessed from the product IDs)"),
            .value(.name, "NAME", "the matrix's name (default: --out's file name without its extension, else release)"),
            .flag(.force, "overwrite --out if it exists"),
        ])

    func execute(_ arguments: [String]) throws(CommandFailure) -> ExitCode {
        guard let args = try Arguments.parse(arguments, for: Self.spec, on: console) else { return .success }
        guard args.positionals.isEmpty else {
            throw .usage("init takes no positional arguments; name the catalog with --catalog FILE")
        }
        if let matrixPath = args.value(.update) {
            guard args.value(.catalog) == nil, args.value(.bundleId) == nil, args.value(.name) == nil else {
                throw .usage("--update MATRIX reads the catalog, bundle id and name from MATRIX; leave out --catalog, --bundle-id and --name")
            }
            let out = args.value(.out).flatMap { $0 == "-" ? nil : $0 } ?? matrixPath
            if out != matrixPath, !args.has(.force), FileManager.default.fileExists(atPath: out) {
                throw .usage("\(out) exists; pass --force to replace it, or choose another --out")
            }
            return try update(matrixPath, out: out, toStdout: args.value(.out) == "-")
        }
        guard let catalogPath = args.value(.catalog) else { throw .usage("missing --catalog FILE (the .storekit file), or --update MATRIX") }
        let out = args.value(.out).flatMap { $0 == "-" ? nil : $0 }
        if let out, !args.has(.force), FileManager.default.fileExists(atPath: out) {
            throw .usage("\(out) exists; pass --force to replace it, or choose another --out")
        }
        if let bundleId = args.value(.bundleId), bundleId.isEmpty { throw .usage("--bundle-id is empty") }

        let bytes = try InputFiles.readArgument(catalogPath, what: "catalog")
        let (read, diagnostics) = StoreKitConfigurationReader.read(bytes, file: catalogPath)
        _ = MatrixCommand.report(diagnostics, on: console)
        guard let catalog = read else {
            throw CommandFailure("\(catalogPath) is not a usable StoreKit configuration; no matrix was written", code: .dataError)
        }

        let outDirectory = out.map { ($0 as NSString).deletingLastPathComponent } ?? ""
        let options = MatrixGenerator.Options(
            catalogReference: RelativePath.from(directory: outDirectory, to: catalogPath),
            bundleId: args.value(.bundleId), name: args.value(.name) ?? Self.defaultName(out: out),
            schemaReference: RelativePath.from(directory: outDirectory, to: "schema/matrix.schema.json"))
        let output: MatrixGenerator.Output
        do {
            output = try MatrixGenerator.generate(catalog, options: options)
        } catch {
            throw CommandFailure("\(catalogPath): \(error.message)", code: .dataError)
        }

        if let out {
            try write(output.bytes, to: out, replacing: args.has(.force))
        } else {
            console.outputData(Data(output.bytes))
        }
        func counted(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }
        console.info("wrote \(out ?? "the matrix to stdout"): \(counted(output.caseCount, "case")), \(counted(output.tierCount, "tier")), "
            + counted(output.accountCount, "account"))
        if out == nil {
            // A matrix reads its catalog relative to its own file; stdout has no file to be relative to.
            console.info("note: the catalog path in it, \(TerminalText.visible(options.catalogReference)), is relative to the current directory, "
                + "and a matrix reads it relative to its own file: save the matrix here, or pass --out FILE to have it written relative to FILE")
        }
        if let guessed = output.guessedBundleId {
            let how = guessed == "com.example.app" ? "is a placeholder (the product IDs suggest none)" : "is guessed from the product IDs"
            console.info("note: app.bundleId \"\(guessed)\" \(how); pass --bundle-id with your app's bundle id to set it")
        }
        for note in output.notes { console.info("note: " + note) }
        if let schema = options.schemaReference, !FileManager.default.fileExists(atPath: "schema/matrix.schema.json") {
            console.info("note: $schema is \(schema); for editor checks write it with `matrix schema --out schema/matrix.schema.json`")
        }
        if let out {
            console.info("next: matrix run \(out)   ·   matrix score \(out)   ·   matrix plan \(out) --env sandbox --accounts 3")
        }
        return .success
    }

    /// The matrix's name when --name is absent: the name of the file it is written to without its extension
    /// (`matrices/smoke.json` is `smoke`), the name a team calls it by; `release` for stdout or a file named only
    /// by an extension.
    static func defaultName(out: String?) -> String {
        guard let out else { return "release" }
        let stem = ((out as NSString).lastPathComponent as NSString).deletingPathExtension
        return stem.isEmpty || stem.hasPrefix(".") ? "release" : stem
    }

    /// `--update MATRIX`: appends what is missing for new catalog products and writes the result to `out`.
    func update(_ path: String, out: String, toStdout: Bool) throws(CommandFailure) -> ExitCode {
        let (loaded, diagnostics, bytes) = try InputFiles.loadMatrix(path)
        _ = MatrixCommand.report(diagnostics, on: console)
        guard let matrix = loaded else { throw CommandFailure("\(path) is not valid; fix it before updating it", code: .dataError) }
        let output: MatrixUpdater.Output
        do {
            output = try MatrixUpdater.update(bytes, matrix: matrix)
        } catch {
            throw CommandFailure("\(path): \(error.message)", code: .dataError)
        }
        guard !output.addedProducts.isEmpty else {
            console.info("\(path) already tests every product of its catalog; nothing to add", always: true)
            if toStdout { console.outputData(Data(bytes)) }
            return .success
        }
        // The result must load as the original did: an insertion that broke the matrix is a bug, never written.
        let directory = (path as NSString).deletingLastPathComponent
        let reloaded = MatrixLoader.load(output.bytes, file: path) { catalogPath in
            let resolved = catalogPath.hasPrefix("/") || directory.isEmpty ? catalogPath : directory + "/" + catalogPath
            guard let contents = FileManager.default.contents(atPath: resolved) else { return .unreadable(reason: "\(resolved): cannot be read") }
            return .contents(Array(contents), displayPath: resolved)
        }
        guard reloaded.matrix != nil else {
            _ = MatrixCommand.report(reloaded.diagnostics, on: console)
            throw CommandFailure("the updated matrix would not load; \(path) was left as it was", code: .software)
        }
        if toStdout {
            console.outputData(Data(output.bytes))
        } else {
            // Updating a matrix in place updates the file a link names, not the link.
            let target = out == path ? URL(fileURLWithPath: path).resolvingSymlinksInPath().path : out
            try write(output.bytes, to: target, replacing: true)
        }
        func counted(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }
        // Built in parts: one expression of these `+`s took the type checker seconds.
        let destination: String = toStdout ? "the matrix on stdout" : out
        let products: String = counted(output.addedProducts.count, "new product")
        let productList: String = output.addedProducts.joined(separator: ", ")
        let cases: String = counted(output.addedCases.count, "case")
        let accounts: String = counted(output.addedAccounts.count, "account")
        let tiers: String = output.tierChanges.isEmpty ? "" : "; tiers: " + output.tierChanges.joined(separator: ", ")
        console.info("updated \(destination) for \(products) (\(productList)): added \(cases), \(accounts)\(tiers)", always: true)
        for id in output.addedCases { console.info("  + \(id)") }
        for note in output.notes { console.info("note: " + note) }
        console.info("next: matrix validate \(toStdout ? path : out)   ·   matrix score \(toStdout ? path : out)")
        return .success
    }

    /// Writes the matrix, creating missing directories; refuses to replace a file unless `replacing`.
    func write(_ bytes: [UInt8], to path: String, replacing: Bool) throws(CommandFailure) {
        try OutputFile.write(Data(bytes), to: path, replacing: replacing, console: console)
    }
}
