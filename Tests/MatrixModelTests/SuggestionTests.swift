import Testing
import MatrixJSON
import MatrixModel

@Suite("Suggestions")
struct SuggestionTests {
    static let actions = Action.allCases.map(\.rawValue)

    @Test("typos find the word meant", arguments: [
        ("purchse", "purchase"),  // a letter left out
        ("purchasse", "purchase"),  // a letter doubled
        ("purhcase", "purchase"),  // neighbours swapped
        ("Purchase", "purchase"),  // case
        ("RESTORE", "restore"),
        ("relaunh", "relaunch"),
        ("advanceTme", "advanceTime"),
        ("expier", "expire"),
        ("refnd", "refund"),
        ("dissableAutoRenew", "disableAutoRenew"),
    ])
    func typos(word: String, meant: String) {
        #expect(Suggestion.nearest(word, among: Self.actions) == meant)
        #expect(Suggestion.didYouMean(word, among: Self.actions) == "did you mean \"\(meant)\"?")
    }

    @Test("words far from every candidate find nothing", arguments: ["buy", "xyz", "subscribe", "cancel", "launchApp2", "p"])
    func farWords(word: String) {
        #expect(Suggestion.nearest(word, among: Self.actions) == nil)
        #expect(Suggestion.didYouMean(word, among: Self.actions) == nil)
    }

    @Test("the limit is a third of the longer word, at least one edit")
    func limit() {
        #expect(Suggestion.nearest("abcdefxyz", among: ["abcdefghi"]) == "abcdefghi")  // 3 edits of 9
        #expect(Suggestion.nearest("abcdewxyz", among: ["abcdefghi"]) == nil)  // 4 edits of 9
        #expect(Suggestion.nearest("por", among: ["pro"]) == "pro")  // 1 edit (a swap) of 3
        #expect(Suggestion.nearest("vpi", among: ["pro"]) == nil)
        #expect(Suggestion.nearest("ab", among: ["xy"]) == nil)  // 2 edits of 2
        #expect(Suggestion.nearest("café", among: ["cafe"]) == "cafe")  // counted in Unicode scalars
    }

    @Test("the nearest candidate wins, ties go to the first in alphabetical order")
    func nearestAndTies() {
        #expect(Suggestion.nearest("purchases", among: ["purchaseOutsideApp", "purchase"]) == "purchase")
        #expect(Suggestion.nearest("cat", among: ["hat", "bat", "rat"]) == "bat")
        #expect(Suggestion.nearest("com.example.prp", among: ["com.example.pro", "com.example.vip.monthly"]) == "com.example.pro")
    }

    @Test("the word itself is never suggested, nor anything from an empty list")
    func notItself() {
        #expect(Suggestion.nearest("pro", among: ["pro"]) == nil)
        #expect(Suggestion.nearest("pro", among: ["pro", "prp"]) == "prp")
        #expect(Suggestion.nearest("pro", among: []) == nil)
    }

    @Test("a word cut short finds the one candidate it starts; two such candidates, or a short start, find nothing")
    func prefixes() {
        #expect(Suggestion.nearest("deniesGrace", among: ["deniesGracePeriod", "grantsBillingRetry"]) == "deniesGracePeriod")
        #expect(Suggestion.nearest("restore/nothing", among: ["restore/nothing-to-restore", "refund/pro"]) == "restore/nothing-to-restore")
        // A likely typo still comes first.
        #expect(Suggestion.nearest("refund/plus", among: ["refund/plus-monthly", "refund/pro"]) == "refund/pro")
        #expect(Suggestion.nearest("refund", among: ["refund/plus-monthly", "refund/pro"]) == nil)
        #expect(Suggestion.nearest("den", among: ["deniesGracePeriod"]) == nil)
    }
}
