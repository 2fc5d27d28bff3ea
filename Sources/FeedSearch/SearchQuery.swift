public import Foundation

/// A parsed search query (docs/query.md): the one form every use of the query language shares —
/// `show --query`, `/api/items?q=`, saved views and filter rules — and that each store engine
/// renders into its own SQL, with ``SearchQuery/matches(_:now:)`` as the reference.
public indirect enum SearchQuery: Sendable, Hashable {
    /// Every part matches (the implicit AND between terms).
    case all([SearchQuery])
    /// At least one part matches (`a OR b`).
    case any([SearchQuery])
    /// The part does not match (`-term`).
    case not(SearchQuery)
    /// Text: a word, a prefix or a phrase, in one field or in any text field.
    case text(TextTerm)
    /// `feed:NAME`: the item is in that feed (an item shared by several feeds is in each).
    case feed(String)
    /// `source:TYPE`: the item's source type.
    case source(String)
    /// A date term on the date the stream is ordered by (`updated`, else `published`).
    case date(DateTerm)

    /// The text fields a term may look in.
    public enum Field: String, Sendable, CaseIterable {
        case title, summary, author
    }

    /// A word (`swift`), a prefix (`swi*`) or a phrase (`"server side"`), as folded tokens.
    public struct TextTerm: Sendable, Hashable {
        /// The tokens, folded (``SearchText/tokens(_:)``): one for a word or a prefix, several for a phrase.
        public var tokens: [String]
        /// Whether the last token is a prefix (`word*`).
        public var prefix: Bool
        /// The one field to look in, or `nil` for title, summary and author.
        public var field: Field?

        /// Creates a term.
        public init(tokens: [String], prefix: Bool = false, field: Field? = nil) {
            self.tokens = tokens
            self.prefix = prefix
            self.field = field
        }
    }

    /// A date term: a bound as a UTC instant, or an age relative to the time of the read.
    public enum DateTerm: Sendable, Hashable {
        /// `after:DAY`: on or after that day (its first second, UTC).
        case onOrAfter(Date)
        /// `before:DAY`: before that day.
        case before(Date)
        /// `newer:AGE`: at most that many seconds old.
        case newer(TimeInterval)
        /// `older:AGE`: more than that many seconds old.
        case older(TimeInterval)
    }

    /// The query that matches everything (an empty query string).
    public static let everything = SearchQuery.all([])

    /// Whether the query has an age (`newer:`, `older:`): what it matches then moves with the
    /// clock, not only with the store.
    public var hasAge: Bool {
        switch self {
        case .all(let parts), .any(let parts): parts.contains(where: \.hasAge)
        case .not(let part): part.hasAge
        case .date(.newer), .date(.older): true
        case .text, .feed, .source, .date: false
        }
    }
}

/// What a query is evaluated on: one item of the merged stream, as the store holds it.
public struct SearchDocument: Sendable {
    /// The item's title.
    public var title: String
    /// Its summary, if any.
    public var summary: String?
    /// Its author's name, if any.
    public var author: String?
    /// The feeds that carry it.
    public var feeds: [String]
    /// Its source type (`github.repos`).
    public var source: String
    /// The date the stream is ordered by (`updated`, else `published`), if any.
    public var date: Date?

    /// Creates a document.
    public init(title: String, summary: String?, author: String?, feeds: [String], source: String, date: Date?) {
        self.title = title
        self.summary = summary
        self.author = author
        self.feeds = feeds
        self.source = source
        self.date = date
    }
}
