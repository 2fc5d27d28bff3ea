package import FeedSearch
import Foundation

/// A value bound to a statement ``SelectionSQL`` renders.
package enum SQLBind: Sendable, Equatable {
    case text(String)
    case real(Double)
    /// A list of text values (one bound array on PostgreSQL, a JSON array for `json_each` on SQLite).
    case texts([String])
}

/// What differs between the two engines when a selection becomes SQL: placeholders, booleans,
/// list membership, and how a row's text is looked up in the full-text index.
package protocol SelectionDialect: Sendable {
    /// The placeholder of the `index`-th bind (1-based).
    func placeholder(_ index: Int, for bind: SQLBind) -> String
    /// True and false as SQL literals.
    var trueLiteral: String { get }
    var falseLiteral: String { get }
    /// The condition that row `alias` is visible (not staged).
    func visible(_ alias: String) -> String
    /// The condition that row `alias` is marked shared.
    func shared(_ alias: String) -> String
    /// The condition that the text `expression` is in the list bound at `placeholder`.
    func list(_ placeholder: String, contains expression: String) -> String
    /// The condition that row `alias` is in `set`: for counts (`asSet`), a lookup of the index's
    /// rows, with ``indexQuery(_:)`` bound at `placeholder`; for walks, a test of the one row, with
    /// ``rowQuery(_:)`` bound there.
    func text(of alias: String, matching placeholder: String, asSet: Bool) -> String
    /// `set` in the index's own query language (an FTS5 expression, a `tsquery`).
    func indexQuery(_ set: TextSet) -> String
    /// `set` as the bind of a one-row test (``text(of:matching:asSet:)`` without `asSet`).
    func rowQuery(_ set: TextSet) -> String
    /// The `FROM` item of the visible shared rows, as `alias` (read through `item_shared`).
    func sharedRows(_ alias: String) -> String
    /// A `WITH` clause the listing's ranks need (the list bound at `placeholder`), if any.
    func listingTable(_ placeholder: String) -> String?
    /// The rank of `alias`'s feed in the listing bound at `placeholder` (its order; lower first).
    func rank(of alias: String, listing placeholder: String) -> String
}

/// Renders a ``StreamSelection`` into SQL conditions over `item` rows, gathering binds as it goes
/// (one renderer per statement). Both engines use it, so the two read the same selection the
/// same way; only the ``SelectionDialect`` differs.
///
/// Every condition is two-valued (`COALESCE(…, false)` around anything that may be NULL), so
/// `NOT` works as the reference evaluator's negation does: an undated item matches no date term
/// and so matches its negation.
package struct SelectionSQL<Dialect: SelectionDialect> {
    package let dialect: Dialect
    /// Every value bound so far, by marker number.
    private var binds: [SQLBind] = []
    /// The listed feeds.
    let listed: Set<String>
    /// Every stored feed's source type.
    let sourceByFeed: [String: String]
    let selection: StreamSelection
    let now: Date
    /// Binds the statement has before this renderer's (placeholders are numbered after them).
    let bindOffset: Int
    private var aliases = 0

    package init(
        _ dialect: Dialect, listed: [String], sourceByFeed: [String: String], selection: StreamSelection,
        bindOffset: Int = 0
    ) {
        self.dialect = dialect
        self.bindOffset = bindOffset
        self.listed = Set(listed)
        self.sourceByFeed = sourceByFeed
        self.selection = selection
        now = selection.now ?? Date()
    }

    /// Binds `value`; returns a marker that ``finish(_:)`` turns into its placeholder.
    package mutating func bind(_ value: SQLBind) -> String {
        binds.append(value)
        return "\u{1}\(binds.count)\u{2}"
    }

    /// `text` (rendered by this renderer) with its markers replaced by the dialect's placeholders,
    /// numbered after ``bindOffset`` in order of first use, and the binds in that order: a part
    /// rendered and then folded away (`x AND false`) leaves no bind behind.
    package func finish(_ text: String) -> (sql: String, binds: [SQLBind]) {
        var sql = ""
        var used: [Int: Int] = [:]
        var ordered: [SQLBind] = []
        var scalars = text.unicodeScalars[...]
        while let start = scalars.firstIndex(of: "\u{1}") {
            sql.unicodeScalars.append(contentsOf: scalars[..<start])
            let rest = scalars[scalars.index(after: start)...]
            guard let end = rest.firstIndex(of: "\u{2}"), let index = Int(String(rest[..<end])) else {
                sql.unicodeScalars.append(contentsOf: scalars[start...])
                return (sql, ordered)
            }
            let number: Int
            if let known = used[index] {
                number = known
            } else {
                ordered.append(binds[index - 1])
                number = ordered.count
                used[index] = number
            }
            sql += dialect.placeholder(bindOffset + number, for: binds[index - 1])
            scalars = rest[rest.index(after: end)...]
        }
        sql.unicodeScalars.append(contentsOf: scalars)
        return (sql, ordered)
    }

    /// The condition a walked row must meet to be shown: its feed keeps it and, as the shown
    /// copy of its entry, it matches the query.
    package mutating func shown(_ alias: String, asSet: Bool = false) -> SQLCondition {
        keptCondition(alias, asSet: asSet).and(condition(selection.query, alias: alias, entry: true, asSet: asSet))
    }

    /// ``kept(_:asSet:)`` as a condition: ``SQLCondition/always`` when every row is kept.
    package mutating func keptCondition(_ alias: String, asSet: Bool = false) -> SQLCondition {
        let rules = selection.rules
        guard rules.hidesItems else { return .always }
        let feeds = listed.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        // Drops: global ones on every row, a feed's own on its rows.
        var dropped = SQLCondition.never
        for rule in rules.global where rule.action == .drop {
            dropped = dropped.or(condition(rule.query, alias: alias, entry: false, asSet: asSet))
        }
        for feed in feeds {
            var own = SQLCondition.never
            for rule in rules.feeds[feed] ?? [] where rule.action == .drop {
                own = own.or(condition(rule.query, alias: alias, entry: false, asSet: asSet))
            }
            guard own != .never else { continue }
            dropped = dropped.or(.sql("\(alias).feed = \(bind(.text(feed)))").and(own))
        }
        // Keeps: where any apply, one of them.
        var kept = SQLCondition.never
        var anyKeep = false
        for rule in rules.global where rule.action == .keep {
            anyKeep = true
            kept = kept.or(condition(rule.query, alias: alias, entry: false, asSet: asSet))
        }
        let globalKeeps = anyKeep
        var feedsWithKeeps: [String] = []
        for feed in feeds {
            var own = SQLCondition.never
            var has = false
            for rule in rules.feeds[feed] ?? [] where rule.action == .keep {
                has = true
                own = own.or(condition(rule.query, alias: alias, entry: false, asSet: asSet))
            }
            guard has else { continue }
            anyKeep = true
            feedsWithKeeps.append(feed)
            if own != .never { kept = kept.or(.sql("\(alias).feed = \(bind(.text(feed)))").and(own)) }
        }
        if anyKeep && !globalKeeps {
            // Only some feeds have keep rules: the others keep what they do not drop.
            kept = kept.or(.sql(dialect.list(bind(.texts(feedsWithKeeps)), contains: "\(alias).feed")).not)
        }
        return dropped.not.and(anyKeep ? kept : .always)
    }

    /// The condition that row `alias`'s feed keeps it (the filter rules), `nil` when every row
    /// is kept.
    package mutating func kept(_ alias: String, asSet: Bool = false) -> String? {
        keptCondition(alias, asSet: asSet).sql(dialect)
    }

    /// `query` as a condition on row `alias`. As an `entry` (the shown copy of a merged entry),
    /// `feed:NAME` holds when any listed feed that keeps the item carries it; as a rule's
    /// condition on one feed's copy, when that copy is the feed's. Constant parts (a feed not
    /// listed, a source no listed feed has) are folded away.
    package mutating func condition(_ query: SearchQuery, alias: String, entry: Bool, asSet: Bool) -> SQLCondition {
        switch query {
        case .all(let parts):
            var result = SQLCondition.always
            for part in parts {
                result = result.and(condition(part, alias: alias, entry: entry, asSet: asSet))
                if result == .never { break }
            }
            return result
        case .any(let parts):
            var result = SQLCondition.never
            for part in parts {
                result = result.or(condition(part, alias: alias, entry: entry, asSet: asSet))
                if result == .always { break }
            }
            return result
        case .not(let part):
            return condition(part, alias: alias, entry: entry, asSet: asSet).not
        case .text(let term):
            let query = bind(.text(asSet ? dialect.indexQuery(.term(term)) : dialect.rowQuery(.term(term))))
            return .sql("COALESCE(\(dialect.text(of: alias, matching: query, asSet: asSet)), \(dialect.falseLiteral))")
        case .source(let type):
            let feeds = sourceByFeed.filter { $0.value == type && listed.contains($0.key) }.map(\.key).sorted()
            guard !feeds.isEmpty else { return .never }
            return .sql(dialect.list(bind(.texts(feeds)), contains: "\(alias).feed"))
        case .date(let term):
            let date = "COALESCE(\(alias).updated, \(alias).published)"
            let test: String
            switch term {
            case .onOrAfter(let day): test = "\(date) >= \(bind(.real(day.timeIntervalSince1970)))"
            case .before(let day): test = "\(date) < \(bind(.real(day.timeIntervalSince1970)))"
            case .newer(let age): test = "\(date) >= \(bind(.real(now.timeIntervalSince1970 - age)))"
            case .older(let age): test = "\(date) < \(bind(.real(now.timeIntervalSince1970 - age)))"
            }
            return .sql("COALESCE(\(test), \(dialect.falseLiteral))")
        case .feed(let name):
            guard listed.contains(name) else { return .never }
            let own = SQLCondition.sql("\(alias).feed = \(bind(.text(name)))")
            guard entry else { return own }
            aliases += 1
            let carrier = "carrier\(aliases)"
            let keptCarrier = keptCondition(carrier)
            guard keptCarrier != .never else { return own }
            var test = """
                EXISTS (SELECT 1 FROM item \(carrier) WHERE \(carrier).dedup_key = \(alias).dedup_key \
                AND \(carrier).feed = \(bind(.text(name))) AND \(dialect.visible(carrier))
                """
            if let kept = keptCarrier.sql(dialect) { test += " AND \(kept)" }
            test += ")"
            return own.or(SQLCondition.sql(dialect.shared(alias)).and(.sql(test)))
        }
    }
}

/// A condition being rendered, with its constant cases kept apart so that they fold away
/// (`x AND false` is false) and never reach SQL as literals, which would stop SQLite from using a
/// partial index it is told to use.
package enum SQLCondition: Sendable, Equatable {
    case always
    case never
    case sql(String)

    package func and(_ other: SQLCondition) -> SQLCondition {
        switch (self, other) {
        case (.never, _), (_, .never): .never
        case (.always, _): other
        case (_, .always): self
        case (.sql(let a), .sql(let b)): .sql("(\(a) AND \(b))")
        }
    }

    package func or(_ other: SQLCondition) -> SQLCondition {
        switch (self, other) {
        case (.always, _), (_, .always): .always
        case (.never, _): other
        case (_, .never): self
        case (.sql(let a), .sql(let b)): .sql("(\(a) OR \(b))")
        }
    }

    package var not: SQLCondition {
        switch self {
        case .always: .never
        case .never: .always
        case .sql(let a): .sql("NOT \(a)")
        }
    }

    /// The SQL text; `nil` for ``always``, the dialect's false for ``never``.
    package func sql<Dialect: SelectionDialect>(_ dialect: Dialect) -> String? {
        switch self {
        case .always: nil
        case .never: dialect.falseLiteral
        case .sql(let text): text
        }
    }

    /// The SQL text, with ``always`` as the dialect's true.
    package func text<Dialect: SelectionDialect>(_ dialect: Dialect) -> String {
        sql(dialect) ?? dialect.trueLiteral
    }
}
