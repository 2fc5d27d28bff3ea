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
        asciiTokens(text) ?? foldedTokens(text)
    }

    /// ``tokens(_:)`` of any text: folded by Foundation, then split.
    static func foldedTokens(_ text: String) -> [String] {
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

    /// ``tokens(_:)`` of an ASCII text, without Foundation's folding (which is most of the cost of
    /// indexing an item): for ASCII, folding is lowercasing, and letters and digits are `A-Z`,
    /// `a-z`, `0-9`. `nil` when `text` has any other byte.
    static func asciiTokens(_ text: String) -> [String]? {
        var tokens: [String] = []
        var current: [UInt8] = []
        for byte in text.utf8 {
            guard byte < 0x80 else { return nil }
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): current.append(byte)
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): current.append(byte + 32)
            default:
                guard !current.isEmpty else { continue }
                if tokens.count < fieldLimit { tokens.append(String(decoding: current, as: UTF8.self)) }
                current.removeAll(keepingCapacity: true)
            }
        }
        if !current.isEmpty && tokens.count < fieldLimit { tokens.append(String(decoding: current, as: UTF8.self)) }
        return tokens
    }
}
