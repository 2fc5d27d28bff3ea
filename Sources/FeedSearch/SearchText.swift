import Foundation

/// The one tokenizer of the query language: what a word is, for documents and queries alike.
///
/// A token is a run of letters and digits (Unicode: `Character.isLetter`, `isNumber`), compared
/// without case, diacritics or width (`É` is `e`, `ﬁ` is `fi`, `Ａ` is `a`): the text is folded
/// first, then split at every other character. No stemming: `runs` is not `run`.
public enum SearchText {
    /// The folded tokens of `text`, in order.
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
            }
        }
        if !current.isEmpty { tokens.append(current) }
        return tokens
    }
}
