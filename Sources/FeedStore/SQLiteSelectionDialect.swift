import FeedSearch
import FeedStorage
import Foundation
import GRDB

/// A selection on SQLite: numbered placeholders (`?3`: a bind used twice is bound once; a
/// statement's own plain `?` come first and take the numbers before), lists as JSON arrays read
/// with `json_each`, and text looked up in the FTS5 table `item_search` (keyed by `item.doc`).
struct SQLiteSelectionDialect: SelectionDialect {
    func placeholder(_ index: Int, for bind: SQLBind) -> String { "?\(index)" }
    var trueLiteral: String { "1" }
    var falseLiteral: String { "0" }
    func visible(_ alias: String) -> String { "\(alias).staged = 0" }
    func shared(_ alias: String) -> String { "\(alias).shared = 1" }
    func list(_ placeholder: String, contains expression: String) -> String {
        "\(expression) IN (SELECT value FROM json_each(\(placeholder)))"
    }

    func text(of alias: String, matching placeholder: String, asSet: Bool) -> String {
        asSet
            ? "\(alias).doc IN (SELECT rowid FROM item_search WHERE item_search MATCH \(placeholder))"
            : Self.rowTest(alias, placeholder)
    }

    /// ``SearchIndex/rowTest`` of row `alias`, with the set (``TextSet/rowTest``) bound at `placeholder`.
    static func rowTest(_ alias: String, _ placeholder: String) -> String {
        "feedagg_text_match(\(placeholder), \(alias).title, \(alias).summary, \(alias).author_name)"
    }

    func rowQuery(_ set: TextSet) -> String { set.rowTest }

    /// An FTS5 expression: a term is a phrase of quoted tokens (`"server" + "side"`, the last one
    /// `*` for a prefix), behind its column (`title : …`); sets combine with `AND` and `OR`.
    /// Tokens are folded already (``SearchText``), as the indexed text is.
    func indexQuery(_ set: TextSet) -> String {
        switch set {
        case .term(let term):
            var phrase = term.tokens.map { "\"\($0.replacingOccurrences(of: "\"", with: "\"\""))\"" }.joined(separator: " + ")
            if term.prefix { phrase += " *" }
            return term.field.map { "\(Self.column($0)) : \(phrase)" } ?? phrase
        case .all(let parts): return "(" + parts.map(indexQuery).joined(separator: " AND ") + ")"
        case .any(let parts): return "(" + parts.map(indexQuery).joined(separator: " OR ") + ")"
        }
    }

    func sharedRows(_ alias: String) -> String { "item AS \(alias) INDEXED BY item_shared" }

    /// The listing as a table read once (`json_each` would parse the list again for every row).
    func listingTable(_ placeholder: String) -> String? {
        "WITH stream_listing(rank, feed) AS MATERIALIZED (SELECT key, value FROM json_each(\(placeholder)))"
    }

    func rank(of alias: String, listing placeholder: String) -> String {
        "(SELECT rank FROM stream_listing WHERE stream_listing.feed = \(alias).feed)"
    }

    static func column(_ field: SearchQuery.Field) -> String {
        switch field {
        case .title: "title"
        case .summary: "summary"
        case .author: "author"
        }
    }

    /// GRDB arguments for `binds`.
    static func arguments(_ binds: [SQLBind]) -> StatementArguments {
        var arguments = StatementArguments()
        for bind in binds {
            switch bind {
            case .text(let text): _ = arguments.append(contentsOf: [text])
            case .real(let value): _ = arguments.append(contentsOf: [value])
            case .texts(let list):
                let json = (try? JSONSerialization.data(withJSONObject: list)).flatMap { String(data: $0, encoding: .utf8) }
                _ = arguments.append(contentsOf: [json ?? "[]"])
            }
        }
        return arguments
    }
}
