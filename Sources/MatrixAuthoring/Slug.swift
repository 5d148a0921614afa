import Foundation

/// Short lowercase names for tiers, balances, case IDs and accounts, made from product names.
///
/// `"Plus Monthly"` → `plus-monthly`, `"MonthlyPlan"` → `monthly-plan`, `"Joodle Pro à vie"` →
/// `joodle-pro-a-vie`, `"Annual $29.99"` → `annual-29-99`. Letters outside ASCII that have no ASCII base letter
/// are dropped, so a name written only in another script gives an empty slug and the caller falls back to the
/// next name (reference name, then product ID).
enum Slug {
    /// The longest slug made, in characters; longer ones are cut at a hyphen.
    static let maximumLength = 40

    /// The slug of `text`: ASCII letters and digits in lowercase, words joined by `-`.
    static func make(_ text: String) -> String {
        let folded = text.folding(options: [.diacriticInsensitive, .widthInsensitive], locale: Locale(identifier: "en_US_POSIX"))
        var words: [String] = []
        var word = ""
        var previous: Character?
        for character in folded {
            guard character.isASCII, character.isLetter || character.isNumber else {
                if !word.isEmpty { words.append(word) }
                word = ""
                previous = nil
                continue
            }
            // A new word starts at a lower-to-upper case change: "MonthlyPlan" → monthly, plan.
            if let previous, previous.isLowercase, character.isUppercase, !word.isEmpty {
                words.append(word)
                word = ""
            }
            word.append(character)
            previous = character
        }
        if !word.isEmpty { words.append(word) }
        var slug = ""
        for word in words.map({ $0.lowercased() }) {
            let candidate = slug.isEmpty ? word : slug + "-" + word
            if candidate.count > maximumLength { break }
            slug = candidate
        }
        if slug.isEmpty, let first = words.first { slug = String(first.lowercased().prefix(maximumLength)) }
        return slug
    }

    /// Whether a slug is good enough to name something: at least two characters, one of them a letter.
    static func isUsable(_ slug: String) -> Bool {
        slug.count >= 2 && slug.contains { $0.isLetter }
    }

    /// A slug from a product ID: its last dot-separated parts, as few as give a usable slug
    /// (`com.example.app.pro` → `pro`, `com.app.pro.year.1` → `year-1`).
    static func fromProductID(_ productID: String) -> String {
        let parts = productID.split(separator: ".").map(String.init)
        for count in 1...max(1, parts.count) {
            let slug = make(parts.suffix(count).joined(separator: " "))
            if isUsable(slug) { return slug }
        }
        let whole = make(productID)
        return whole.isEmpty ? "product" : whole
    }
}
