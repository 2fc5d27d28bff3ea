// The PostgreSQL store is built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

import FeedCore
import FeedSearch
import FeedStorage
import PostgresNIO

/// A selection on PostgreSQL: `$n` placeholders, lists as `text[]` arrays, and text looked up in
/// `item.search`, the `tsvector` written with each item (``PostgresSearchVector``), with a
/// `tsquery` cast from text (no dictionary: lexemes are the folded tokens as they are).
struct PostgresSelectionDialect: SelectionDialect {
    func placeholder(_ index: Int, for bind: SQLBind) -> String {
        switch bind {
        case .text: "$\(index)::text"
        case .real: "$\(index)::float8"
        case .texts: "$\(index)::text[]"
        }
    }
    var trueLiteral: String { "TRUE" }
    var falseLiteral: String { "FALSE" }
    func visible(_ alias: String) -> String { "NOT \(alias).staged" }
    func shared(_ alias: String) -> String { "\(alias).shared" }
    func list(_ placeholder: String, contains expression: String) -> String { "\(expression) = ANY(\(placeholder))" }
    func text(of alias: String, matching placeholder: String, asSet: Bool) -> String {
        "\(alias).search @@ \(placeholder)::tsquery"
    }

    /// A row is tested with its own `search` vector, as a set is looked up: the same `tsquery`.
    func rowQuery(_ set: TextSet) -> String { indexQuery(set) }

    func sharedRows(_ alias: String) -> String { "item AS \(alias)" }
    func listingTable(_ placeholder: String) -> String? { nil }
    func rank(of alias: String, listing placeholder: String) -> String {
        "array_position(\(placeholder), \(alias).feed)"
    }

    /// A `tsquery`: a term is its lexemes joined by `<->` (adjacent, in order), each with its
    /// field's weight (`:A` title, `:B` summary, `:C` author) and the last one `:*` for a prefix;
    /// sets combine with `&` and `|`.
    func indexQuery(_ set: TextSet) -> String {
        switch set {
        case .term(let term):
            let weight = term.field.map(PostgresSearchVector.weight) ?? ""
            let lexemes = term.tokens.enumerated().map { offset, token in
                let prefix = term.prefix && offset == term.tokens.count - 1 ? "*" : ""
                let label = prefix + weight
                return PostgresSearchVector.quoted(token) + (label.isEmpty ? "" : ":\(label)")
            }
            return "(" + lexemes.joined(separator: " <-> ") + ")"
        case .all(let parts): return "(" + parts.map(indexQuery).joined(separator: " & ") + ")"
        case .any(let parts): return "(" + parts.map(indexQuery).joined(separator: " | ") + ")"
        }
    }

    /// Appends `binds` to a statement's bindings, in order.
    static func append(_ binds: [SQLBind], to bindings: inout PostgresBindings) {
        for bind in binds {
            switch bind {
            case .text(let text): bindings.append(text)
            case .real(let value): bindings.append(value)
            case .texts(let list): bindings.append(list)
            }
        }
    }
}

/// The `tsvector` of an item, built in Swift from ``SearchText`` tokens so that PostgreSQL indexes
/// exactly the tokens SQLite's FTS5 table and the reference evaluator see (PostgreSQL's own
/// parser would also emit `foo-bar`, host names, e-mails and numbers, and fold by the server's
/// locale). Title tokens carry weight A, summary B, author C; each field's positions follow the
/// previous field's after a gap, so no phrase spans two fields.
enum PostgresSearchVector {
    /// The weight of a field's lexemes.
    static func weight(_ field: SearchQuery.Field) -> String {
        switch field {
        case .title: "A"
        case .summary: "B"
        case .author: "C"
        }
    }

    /// A lexeme quoted for `tsvector`/`tsquery` input.
    static func quoted(_ token: String) -> String {
        // Tokens are letters and digits: the escapes are for safety, and cost nothing when unused
        // (`replacingOccurrences` on every lexeme was most of the cost of indexing a pull).
        guard token.utf8.contains(where: { $0 == UInt8(ascii: "'") || $0 == UInt8(ascii: "\\") }) else {
            return "'" + token + "'"
        }
        return "'" + token.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// The longest lexeme PostgreSQL accepts, in bytes, and the most positions it keeps for one.
    static let maximumLexemeBytes = 2_046
    static let maximumPositions = 255

    /// The `tsvector` input text of an item's fields.
    static func literal(title: String, summary: String?, author: String?) -> String {
        var index: [String: Int] = [:]
        var lexemes: [String] = []
        var counts: [Int] = []
        var next = 1
        for (text, field) in [(title, SearchQuery.Field.title), (author, .author), (summary, .summary)] {
            guard let text else { continue }
            let weight = weight(field)
            for token in SearchText.tokens(text) {
                defer { next += 1 }
                guard token.utf8.count <= maximumLexemeBytes else { continue }
                let position = String(next) + weight
                if let known = index[token] {
                    guard counts[known] < maximumPositions else { continue }
                    lexemes[known] += "," + position
                    counts[known] += 1
                } else {
                    index[token] = lexemes.count
                    lexemes.append(quoted(token) + ":" + position)
                    counts.append(1)
                }
            }
            next += 1
        }
        return lexemes.joined(separator: " ")
    }

    /// The `tsvector` input text of `item`.
    static func literal(_ item: FeedItem) -> String {
        literal(title: item.title, summary: item.summary, author: item.author?.name)
    }

    /// The `tsvector` input texts of `items`, by id (the first of a repeated id).
    static func literals(of items: [PreparedItem]) -> [String: String] {
        var literals: [String: String] = [:]
        literals.reserveCapacity(items.count)
        for prepared in items where literals[prepared.item.id] == nil {
            literals[prepared.item.id] = literal(prepared.item)
        }
        return literals
    }
}

#endif
