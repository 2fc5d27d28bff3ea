public import DeterministicRandom

/// Random item text and random queries over one small vocabulary, for the search tests of both
/// engines: words in several cases, with and without diacritics, ligatures and full-width forms,
/// words joined by punctuation (`server-side`, `node.js`), digits and CJK, so that queries hit
/// folding, phrases, prefixes and fields.
public enum RandomSearchText {
    /// Words items are written with.
    static let words = [
        "swift", "Swift", "SWIFT", "rust", "server", "side", "server-side", "Server Side", "Café", "cafe", "naïve",
        "ﬁle", "file", "Ｆull", "full", "node.js", "async", "asyncio", "release", "Résumé", "2026", "v6", "日本語",
        "über", "linux", "go",
    ]
    static let authors = ["Ana Lópes", "bob", "SERVER Admin", "Zoë Swift"]

    /// A title's extra words, a summary and an author, any of the last two possibly absent.
    public static func fields(using random: inout SplitMix) -> (title: String, summary: String?, author: String?) {
        let title = (0..<Int.random(in: 0...3, using: &random)).map { _ in words.randomElement(using: &random)! }
        let summary: String? =
            Int.random(in: 0..<4, using: &random) == 0
            ? nil
            : (0..<Int.random(in: 0...8, using: &random)).map { _ in words.randomElement(using: &random)! }
                .joined(separator: Int.random(in: 0..<2, using: &random) == 0 ? " " : ", ")
        let author = Int.random(in: 0..<3, using: &random) == 0 ? nil : authors.randomElement(using: &random)
        return (title.joined(separator: " "), summary, author)
    }

    /// Query words: plain, prefixes, phrases (adjacent tokens, in order) and folded forms.
    static let terms = [
        "swift", "rust", "server", "side", "café", "CAFE", "naive", "file", "full", "node", "js", "async", "release",
        "resume", "2026", "v6", "日本語", "uber", "linux", "ana", "lopes", "zoe", "alpha", "i7", "r1",
        "serv*", "asy*", "re*", "caf*", "sw*", "\"server side\"", "\"node js\"", "\"swift rust\"", "\"ana lopes\"",
        "\"server si\"*", "server-side", "node.js",
    ]
    static let fieldNames = ["title:", "summary:", "author:"]
    static let feeds = ["alpha", "beta", "gamma", "delta", "unknown"]
    static let sources = ["github.repos", "github.members", "photos.500px"]
    static let dates = [
        "after:2023-11-16", "before:2023-11-18", "after:2023-11-14", "before:2023-11-14", "newer:3d", "older:5d",
        "newer:36h", "older:1w",
    ]

    /// A random query of the language: one to three groups of terms, field terms, `feed:`,
    /// `source:`, dates, `-` negations, `OR` and parentheses.
    public static func query(using random: inout SplitMix) -> String {
        (0..<Int.random(in: 1...3, using: &random)).map { _ in group(depth: 0, using: &random) }.joined(separator: " ")
    }

    static func group(depth: Int, using random: inout SplitMix) -> String {
        var parts = [unary(depth: depth, using: &random)]
        while Int.random(in: 0..<4, using: &random) == 0 { parts.append(unary(depth: depth, using: &random)) }
        return parts.joined(separator: " OR ")
    }

    static func unary(depth: Int, using random: inout SplitMix) -> String {
        let negated = Int.random(in: 0..<5, using: &random) == 0 ? "-" : ""
        let roll = Int.random(in: 0..<20, using: &random)
        let term: String
        switch roll {
        case 0..<10: term = terms.randomElement(using: &random)!
        case 10..<13:
            let word = terms.randomElement(using: &random)!
            term = fieldNames.randomElement(using: &random)! + word
        case 13..<15: term = "feed:" + feeds.randomElement(using: &random)!
        case 15: term = "source:" + sources.randomElement(using: &random)!
        case 16..<18: term = dates.randomElement(using: &random)!
        default:
            term =
                depth < 2
                ? "(" + (0..<Int.random(in: 1...2, using: &random)).map { _ in group(depth: depth + 1, using: &random) }
                    .joined(separator: " ") + ")"
                : terms.randomElement(using: &random)!
        }
        return negated + term
    }

    /// Random filter rules, as feeds.yaml would give them: `(scope, action, query)` where scope is
    /// `nil` for a global rule or a feed name, and action is `drop`, `keep` or `tag:LABEL`.
    public static func rules(using random: inout SplitMix) -> [(scope: String?, action: String, query: String)] {
        (0..<Int.random(in: 0...3, using: &random)).map { _ in
            let scope = Int.random(in: 0..<2, using: &random) == 0 ? nil : feeds.randomElement(using: &random)
            let action = ["drop", "drop", "keep", "tag:hot", "tag:cold"].randomElement(using: &random)!
            return (scope, action, group(depth: 1, using: &random))
        }
    }
}
