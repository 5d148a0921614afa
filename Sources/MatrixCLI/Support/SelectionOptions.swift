import MatrixModel

/// `--case`, `--kind`, `--tag` and `--profile`: the options that choose a matrix's cases, declared once for
/// `run`, `plan` and `score`.
enum SelectionOptions {
    /// The options, as each command that selects cases declares them.
    static let options: [OptionSpec] = [
        .value(.caseID, "ID", "only the case ID; * and ? match (e.g. 'refund/*'); repeatable", repeatable: true),
        .value(.kind, "KIND", "only cases of KIND (e.g. refund); repeatable", repeatable: true),
        .value(.tag, "TAG", "only cases tagged TAG (a case's \"tags\"); repeatable", repeatable: true),
        .value(.profile, "NAME", "only the cases of the matrix's profile NAME (its \"profiles\", e.g. smoke)"),
    ]

    /// The keys of ``options``.
    static let keys: [OptionKey] = options.map(\.key)

    /// The selection the command line asks for.
    static func selection(_ args: Arguments) -> CaseSelection {
        CaseSelection(profile: args.value(.profile), cases: args.all(.caseID), kinds: args.all(.kind), tags: args.all(.tag))
    }

    /// The indices of the cases `selection` takes in `matrix`, every case for the empty selection.
    /// - Throws: ``CommandFailure`` (usage) naming what matched nothing, with the nearest name.
    static func resolve(_ selection: CaseSelection, in matrix: Matrix) throws(CommandFailure) -> [Int] {
        guard !selection.isEmpty else { return Array(matrix.cases.indices) }
        do {
            return try selection.resolve(in: matrix)
        } catch {
            throw .usage(error.message)
        }
    }

    /// `matrix` with only the cases `selection` takes, for commands that hand a whole matrix on (`plan`, `score`).
    static func selected(_ matrix: Matrix, _ selection: CaseSelection) throws(CommandFailure) -> Matrix {
        var copy = matrix
        copy.cases = try resolve(selection, in: matrix).map { matrix.cases[$0] }
        return copy
    }
}
