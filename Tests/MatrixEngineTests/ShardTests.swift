import Testing
import MatrixEngine
import MatrixModel

@Suite("Shards")
struct ShardTests {
    func matrix(stepCounts: [Int]) -> Matrix {
        let cases = stepCounts.enumerated().map { index, count in
            MatrixCase(id: "c\(index)", kind: "renewal", account: "a", steps: Array(repeating: Step(action: .observe), count: count))
        }
        return Matrix(name: "m", app: AppInfo(bundleId: "b"), catalog: StoreKitConfiguration(), tiers: [],
                      accounts: [Account(alias: "a")], cases: cases)
    }

    @Test("K/N parses only with 1 ≤ K ≤ N", arguments: [("1/1", true), ("2/4", true), ("0/3", false), ("4/3", false), ("a/b", false), ("3", false), ("1/0", false)])
    func parse(text: String, valid: Bool) {
        #expect((Shard(text) != nil) == valid)
    }

    @Test("every case lands in exactly one slice, and slices are in matrix order")
    func partition() throws {
        let m = matrix(stepCounts: [3, 9, 1, 4, 4, 7, 2, 8, 5, 6, 1, 1])
        for count in 1...5 {
            var seen: [Int] = []
            for index in 1...count {
                let slice = try #require(Shard(index: index, count: count)).caseIndices(of: m)
                #expect(slice == slice.sorted())
                seen += slice
            }
            #expect(seen.sorted() == Array(m.cases.indices))
        }
    }

    @Test("slices are balanced by steps: longest case first to the lightest slice")
    func balance() throws {
        // Steps 9, 8, 7, 6, 5, 4, 4, 3, 2, 1, 1, 1 dealt to 3 slices: loads 17, 17, 17.
        let m = matrix(stepCounts: [3, 9, 1, 4, 4, 7, 2, 8, 5, 6, 1, 1])
        let loads = try (1...3).map { index in
            try #require(Shard(index: index, count: 3)).caseIndices(of: m).map { m.cases[$0].steps.count }.reduce(0, +)
        }
        #expect(loads == [17, 17, 17])
        #expect(try #require(Shard(index: 1, count: 3)).caseIndices(of: m) == [1, 3, 4])
    }
}
