import FeedSearch

/// A ``TextSet`` tested on one row's text, for a walk that reads rows in stream order and keeps
/// those that match. A full-text index answers "which rows hold these tokens" well and "does this
/// row hold them" badly (an FTS5 probe of one row costs about 50 µs: the expression is parsed and
/// every term's doclist sought again); tokenizing the row's own fields costs a few microseconds.
///
/// The test is the reference evaluator's (``SearchQuery/matches(_:now:)``, through
/// ``SearchFields``) on the same tokens the index holds (``SearchText/tokens(_:)``), so it
/// answers as the index would.
extension TextSet {
    /// The set as one text, for a statement's bind: prefix notation over whitespace-free words
    /// (tokens are runs of letters and digits, never a space). `&N` and `|N` take the next `N`
    /// sets; a term is `T` + its field (`-` any, `t`, `s`, `a`) + `*` for a prefix or `=` + its
    /// token count, then its tokens.
    package var rowTest: String {
        var words: [String] = []
        encode(into: &words)
        return words.joined(separator: " ")
    }

    private func encode(into words: inout [String]) {
        switch self {
        case .term(let term):
            let field =
                switch term.field {
                case nil: "-"
                case .title: "t"
                case .summary: "s"
                case .author: "a"
                }
            words.append("T\(field)\(term.prefix ? "*" : "=")\(term.tokens.count)")
            words.append(contentsOf: term.tokens)
        case .all(let parts):
            words.append("&\(parts.count)")
            for part in parts { part.encode(into: &words) }
        case .any(let parts):
            words.append("|\(parts.count)")
            for part in parts { part.encode(into: &words) }
        }
    }

    /// The set written by ``rowTest``; `nil` for any other text.
    package init?(rowTest: String) {
        var words = rowTest.split(separator: " ", omittingEmptySubsequences: true)[...]
        guard let set = Self.decode(&words, depth: 0), words.isEmpty else { return nil }
        self = set
    }

    private static func decode(_ words: inout ArraySlice<Substring>, depth: Int) -> TextSet? {
        guard depth < 256, let word = words.popFirst(), let kind = word.first else { return nil }
        switch kind {
        case "&", "|":
            guard let count = Int(word.dropFirst()), count >= 0, count <= words.count else { return nil }
            var parts: [TextSet] = []
            for _ in 0..<count {
                guard let part = decode(&words, depth: depth + 1) else { return nil }
                parts.append(part)
            }
            return kind == "&" ? .all(parts) : .any(parts)
        case "T":
            let header = Array(word.utf8.dropFirst())
            guard header.count >= 3, let count = Int(String(decoding: header[2...], as: UTF8.self)), count >= 1,
                count <= words.count
            else { return nil }
            let field: SearchQuery.Field?
            switch header[0] {
            case UInt8(ascii: "-"): field = nil
            case UInt8(ascii: "t"): field = .title
            case UInt8(ascii: "s"): field = .summary
            case UInt8(ascii: "a"): field = .author
            default: return nil
            }
            let prefix: Bool
            switch header[1] {
            case UInt8(ascii: "*"): prefix = true
            case UInt8(ascii: "="): prefix = false
            default: return nil
            }
            let tokens = words.prefix(count).map(String.init)
            words = words.dropFirst(count)
            return .term(SearchQuery.TextTerm(tokens: tokens, prefix: prefix, field: field))
        default:
            return nil
        }
    }

    /// Whether a row with these fields is in the set: each field tokenized at most once, and only
    /// when a term looks in it.
    package func matches(title: String?, summary: String?, author: String?) -> Bool {
        var fields = SearchFields(title: title, summary: summary, author: author)
        return matches(&fields)
    }

    private func matches(_ fields: inout SearchFields) -> Bool {
        switch self {
        case .term(let term):
            return fields.contain(term)
        case .all(let parts):
            for part in parts where !part.matches(&fields) { return false }
            return true
        case .any(let parts):
            for part in parts where part.matches(&fields) { return true }
            return false
        }
    }
}
