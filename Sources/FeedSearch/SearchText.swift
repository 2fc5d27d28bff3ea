import Foundation

/// The one tokenizer of the query language: what a word is, for documents and queries alike.
///
/// A token is a run of letters and digits (Unicode: `Character.isLetter`, `isNumber`), compared
/// without case, diacritics or width (`É` is `e`, `ﬁ` is `fi`, `Ａ` is `a`): the text is folded
/// first, then split at every other character. No stemming: `runs` is not `run`.
public enum SearchText {
    /// The tokens of one field that search sees: the first 5,000 (a summary longer than that is
    /// searched by its beginning). Both engines index these and no more, and PostgreSQL keeps
    /// positions only up to 16,383: three fields of at most 5,000 fit.
    public static let fieldLimit = 5_000

    /// The folded tokens of `text`, in order (at most ``fieldLimit``).
    public static func tokens(_ text: String) -> [String] {
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
            .precomposedStringWithCompatibilityMapping.lowercased()
        var tokens: [String] = []
        var current = ""
        for character in folded {
            if character.isLetter || character.isNumber {
                current.append(character)
            } else if !current.isEmpty {
                tokens.append(current)
                current = ""
                if tokens.count == fieldLimit { return tokens }
            }
        }
        if !current.isEmpty { tokens.append(current) }
        return tokens
    }
}
