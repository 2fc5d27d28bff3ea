public import Foundation

/// One filter rule of feeds.yaml (`filters:` under `settings:` or a feed): `{drop: Q}`,
/// `{keep: Q}` or `{tag: LABEL, when: Q}` (docs/query.md, "Filter rules").
public struct FilterRule: Sendable, Hashable {
    /// What the rule does to the items its query matches.
    public enum Action: Sendable, Hashable {
        /// Hides them (for the feed the rule applies to).
        case drop
        /// Where keep rules apply, only the items one of them matches are shown.
        case keep
        /// Labels them (an Atom `category`, a JSON Feed tag, `tags` in `show --format json`).
        case tag(String)
    }

    /// What the rule does.
    public var action: Action
    /// The items it applies to.
    public var query: SearchQuery
    /// The query as written (for messages and `feedagg filters`).
    public var text: String

    /// Creates a rule.
    public init(_ action: Action, query: SearchQuery, text: String) {
        self.action = action
        self.query = query
        self.text = text
    }
}

/// The filter rules a read applies: the global ones (`settings: filters:`) and each feed's own.
///
/// Rules look at one feed's copy of an item: `feed:NAME` in a rule is that feed. A feed keeps its
/// copy when it matches none of the drop rules that apply to the feed (global or its own) and,
/// where keep rules apply, at least one of them. The stream is merged from the kept copies only,
/// so an item is shown when at least one of its feeds keeps it, and lists the feeds that do.
/// Rules never delete anything: they change what the next read returns.
public struct FilterRules: Sendable, Hashable {
    /// The rules of every feed.
    public var global: [FilterRule]
    /// Each feed's own rules, by feed name.
    public var feeds: [String: [FilterRule]]

    /// Creates a rule set.
    public init(global: [FilterRule] = [], feeds: [String: [FilterRule]] = [:]) {
        self.global = global
        self.feeds = feeds.filter { !$0.value.isEmpty }
    }

    /// No rules.
    public static let none = FilterRules()

    /// Whether any rule hides items (a drop or a keep rule); tag rules only label.
    public var hidesItems: Bool {
        (global + feeds.values.joined()).contains { $0.action == .drop || $0.action == .keep }
    }

    /// The rules that apply to `feed`: the global ones, then its own.
    public func rules(for feed: String) -> [FilterRule] {
        global + (feeds[feed] ?? [])
    }

    /// The drop rules' queries that apply to `feed`.
    public func drops(for feed: String) -> [SearchQuery] {
        rules(for: feed).compactMap { $0.action == .drop ? $0.query : nil }
    }

    /// The keep rules' queries that apply to `feed` (empty: the feed keeps what it does not drop).
    public func keeps(for feed: String) -> [SearchQuery] {
        rules(for: feed).compactMap { $0.action == .keep ? $0.query : nil }
    }

    /// Whether `feed` keeps its copy of an item: the reference the engines' SQL is checked against.
    /// `document` is that feed's copy (its ``SearchDocument/feeds`` is `[feed]`).
    public func keeps(_ document: SearchDocument, feed: String, now: Date = Date()) -> Bool {
        if drops(for: feed).contains(where: { $0.matches(document, now: now) }) { return false }
        let keeps = keeps(for: feed)
        return keeps.isEmpty || keeps.contains { $0.matches(document, now: now) }
    }

    /// The labels of the tag rules that apply to any of `feeds` and match `document`, in rule
    /// order (global first), each once.
    public func tags(for document: SearchDocument, feeds: [String], now: Date = Date()) -> [String] {
        var rules = global
        for feed in feeds { rules += self.feeds[feed] ?? [] }
        var labels: [String] = []
        for rule in rules {
            guard case .tag(let label) = rule.action, !labels.contains(label), rule.query.matches(document, now: now) else {
                continue
            }
            labels.append(label)
        }
        return labels
    }

    /// Whether any tag rule exists.
    public var tagsItems: Bool {
        (global + feeds.values.joined()).contains {
            if case .tag = $0.action { return true }
            return false
        }
    }
}
