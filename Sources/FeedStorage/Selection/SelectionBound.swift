package import FeedSearch

/// What the full-text index alone can say about the rows a selection matches, so that a read
/// touches those rows (or their complement) instead of the store:
/// - ``within(_:)``: every matching row is in the set (the set is a superset of the matches);
/// - ``outside(_:)``: every row not in the set matches (the rows that fail are in the set);
/// - ``unbounded``: the index says nothing (a query of dates, feeds or sources only).
package enum SelectionBound: Sendable, Equatable {
    case within(TextSet)
    case outside(TextSet)
    case unbounded

    /// Everything matches: no row can fail.
    package static let everything = SelectionBound.outside(.any([]))

    /// The bound of `query`'s matches.
    package init(_ query: SearchQuery) {
        switch query {
        case .text(let term): self = .within(.term(term))
        case .feed, .source, .date: self = .unbounded
        case .not(let part): self = SelectionBound(part).negated
        case .all(let parts): self = .all(parts.map(SelectionBound.init))
        case .any(let parts): self = .any(parts.map(SelectionBound.init))
        }
    }

    /// The bound of rows that do not match.
    package var negated: SelectionBound {
        switch self {
        case .within(let set): .outside(set)
        case .outside(let set): .within(set)
        case .unbounded: .unbounded
        }
    }

    /// The bound of rows matching every part: within the intersection of the parts' sets when any
    /// part is bounded so; else failing only inside the union of the parts' complements.
    package static func all(_ parts: [SelectionBound]) -> SelectionBound {
        let (within, outside, unbounded) = partition(parts)
        if !within.isEmpty { return .within(TextSet.all(within).simplified) }
        if unbounded { return .unbounded }
        return .outside(TextSet.any(outside).simplified)
    }

    /// The bound of rows matching at least one part: within the union when every part is bounded
    /// so; else failing only inside the intersection of the complements.
    package static func any(_ parts: [SelectionBound]) -> SelectionBound {
        let (within, outside, unbounded) = partition(parts)
        if !outside.isEmpty { return .outside(TextSet.all(outside).simplified) }
        if unbounded { return .unbounded }
        return .within(TextSet.any(within).simplified)
    }

    /// The sets of the parts bounded within, those bounded outside, and whether any is unbounded.
    private static func partition(_ parts: [SelectionBound]) -> (within: [TextSet], outside: [TextSet], unbounded: Bool) {
        var within: [TextSet] = []
        var outside: [TextSet] = []
        var unbounded = false
        for part in parts {
            switch part {
            case .within(let set): within.append(set)
            case .outside(let set): outside.append(set)
            case .unbounded: unbounded = true
            }
        }
        return (within, outside, unbounded)
    }

    /// The bound of the rows `selection` keeps and matches, for a listing of `feeds`: the rules'
    /// drops bound the rows they hide; keep rules bound the rows kept only when every listed
    /// feed has one.
    package init(_ selection: StreamSelection, feeds: [String]) {
        var parts = [SelectionBound(selection.query)]
        // The rows a drop rule hides: a global rule's matches; a feed's own rule's matches in
        // that feed, which the index bounds only when the rule's matches are bounded.
        var drops: [SelectionBound] = selection.rules.global.compactMap {
            $0.action == .drop ? SelectionBound($0.query) : nil
        }
        var keeps: [SelectionBound] = []
        var everyFeedKeeps = true
        var seen: Set<String> = []
        for feed in feeds where seen.insert(feed).inserted {
            for rule in selection.rules.feeds[feed] ?? [] where rule.action == .drop {
                drops.append(.all([.unbounded, SelectionBound(rule.query)]))
            }
            let feedKeeps = selection.rules.keeps(for: feed)
            if feedKeeps.isEmpty {
                everyFeedKeeps = false
                continue
            }
            // Rows of the feed that no keep rule matches are hidden: `NOT feed:F OR keeps`.
            let matched = SelectionBound.any(feedKeeps.map(SelectionBound.init))
            parts.append(.any([.unbounded, matched]))
            keeps.append(matched)
        }
        if !drops.isEmpty { parts.append(SelectionBound.any(drops).negated) }
        if everyFeedKeeps && !keeps.isEmpty { parts.append(.any(keeps)) }
        self = .all(parts)
    }
}

extension StreamSelection {
    /// The query as a set of the index alone, when the selection is nothing else: words,
    /// prefixes and phrases combined with AND and OR, and no rule that hides items. A row then
    /// matches exactly when the index holds it.
    package var textOnly: TextSet? {
        guard !rules.hidesItems, query != .everything else { return nil }
        func set(_ query: SearchQuery) -> TextSet? {
            switch query {
            case .text(let term): return .term(term)
            case .all(let parts):
                let sets = parts.compactMap(set)
                return sets.count == parts.count ? .all(sets) : nil
            case .any(let parts):
                let sets = parts.compactMap(set)
                return sets.count == parts.count ? .any(sets) : nil
            case .not, .feed, .source, .date: return nil
            }
        }
        guard let found = set(query)?.simplified, !found.isEmpty else { return nil }
        return found
    }
}
