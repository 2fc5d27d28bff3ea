public import Foundation

extension SearchQuery {
    /// Whether `document` matches, with ages (`newer:`, `older:`) counted back from `now`: the
    /// reference the store engines' SQL is checked against.
    public func matches(_ document: SearchDocument, now: Date = Date()) -> Bool {
        var fields = SearchFields(title: document.title, summary: document.summary, author: document.author)
        return matches(document, now: now, fields: &fields)
    }

    private func matches(_ document: SearchDocument, now: Date, fields: inout SearchFields) -> Bool {
        switch self {
        case .all(let parts):
            for part in parts where !part.matches(document, now: now, fields: &fields) { return false }
            return true
        case .any(let parts):
            for part in parts where part.matches(document, now: now, fields: &fields) { return true }
            return false
        case .not(let part):
            return !part.matches(document, now: now, fields: &fields)
        case .feed(let name):
            return document.feeds.contains(name)
        case .source(let type):
            return document.source == type
        case .date(let term):
            guard let date = document.date else { return false }
            switch term {
            case .onOrAfter(let day): return date >= day
            case .before(let day): return date < day
            case .newer(let age): return date >= now.addingTimeInterval(-age)
            case .older(let age): return date < now.addingTimeInterval(-age)
            }
        case .text(let term):
            return fields.contain(term)
        }
    }

    /// Whether `tokens` hold the term's tokens adjacent and in order (the last one as a prefix
    /// when the term is one).
    static func contains(_ tokens: [String], _ term: TextTerm) -> Bool {
        let wanted = term.tokens
        guard !wanted.isEmpty, tokens.count >= wanted.count else { return false }
        for start in 0...(tokens.count - wanted.count) {
            var all = true
            for (offset, word) in wanted.enumerated() {
                let token = tokens[start + offset]
                let last = offset == wanted.count - 1
                if last && term.prefix ? !token.hasPrefix(word) : token != word {
                    all = false
                    break
                }
            }
            if all { return true }
        }
        return false
    }
}
