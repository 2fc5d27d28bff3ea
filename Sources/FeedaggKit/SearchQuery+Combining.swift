public import FeedSearch

extension SearchQuery {
    /// Items both queries match: `show --view NAME --query Q`, a view's URL with `?q=`.
    /// ``everything`` on either side leaves the other as it is.
    public static func both(_ first: SearchQuery, _ second: SearchQuery) -> SearchQuery {
        if first == .everything { return second }
        if second == .everything { return first }
        return .all([first, second])
    }

    /// Whether the query has an age term (`newer:`, `older:`), whose matches change with the
    /// time of the read even when the store does not.
    public var dependsOnTime: Bool {
        switch self {
        case .all(let parts), .any(let parts): parts.contains { $0.dependsOnTime }
        case .not(let part): part.dependsOnTime
        case .date(.newer), .date(.older): true
        case .date, .text, .feed, .source: false
        }
    }
}

extension FilterRules {
    /// Whether a rule that hides items has an age term (see ``SearchQuery/dependsOnTime``); tag
    /// rules count too, for the labels they give change as well.
    public var dependsOnTime: Bool {
        (global + feeds.values.joined()).contains { $0.query.dependsOnTime }
    }
}
