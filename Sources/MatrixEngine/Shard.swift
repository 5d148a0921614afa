import MatrixModel

/// One slice of a matrix's cases (`--shard K/N`), so that a CI system's job matrix can spread a run over machines.
///
/// Slices are deterministic and balanced by step count: cases are dealt, longest first, to the slice with the
/// fewest steps so far (ties to the lower case index and the lower slice). Every case lands in exactly one slice.
public struct Shard: Sendable, Hashable, CustomStringConvertible {
    /// 1-based slice number.
    public var index: Int
    /// How many slices.
    public var count: Int

    public init?(index: Int, count: Int) {
        guard count >= 1, (1...count).contains(index) else { return nil }
        self.index = index
        self.count = count
    }

    /// Parses `K/N` with 1 ≤ K ≤ N.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), n <= 10_000 else { return nil }
        self.init(index: k, count: n)
    }

    public var description: String { "\(index)/\(count)" }

    /// The indices of the matrix's cases in this slice, in matrix order: a slice of `among` (the selected cases'
    /// indices), or of every case.
    public func caseIndices(of matrix: Matrix, among selected: [Int]? = nil) -> [Int] {
        let byLength = (selected ?? Array(matrix.cases.indices)).sorted {
            (matrix.cases[$0].steps.count, $1) > (matrix.cases[$1].steps.count, $0)
        }
        var load = [Int](repeating: 0, count: count)
        var mine: [Int] = []
        for caseIndex in byLength {
            var target = 0
            for slice in load.indices where load[slice] < load[target] { target = slice }
            load[target] += matrix.cases[caseIndex].steps.count
            if target == index - 1 { mine.append(caseIndex) }
        }
        return mine.sorted()
    }
}
