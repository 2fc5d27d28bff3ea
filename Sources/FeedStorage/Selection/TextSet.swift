package import FeedSearch

/// A boolean combination of text terms: what a full-text index answers by itself (an FTS5 `MATCH`
/// expression, a `tsquery`).
package indirect enum TextSet: Sendable, Equatable {
    /// Rows with the term.
    case term(SearchQuery.TextTerm)
    /// Rows in every set (no set: every row).
    case all([TextSet])
    /// Rows in at least one set (no set: no row).
    case any([TextSet])

    /// The same set without the parts that add nothing: empty alternatives dropped, an
    /// intersection with an empty part empty, one-part groups unwrapped. An index query is
    /// rendered only from a simplified set that is not empty (FTS5 has no empty group).
    package var simplified: TextSet {
        switch self {
        case .term: return self
        case .all(let parts):
            let parts = parts.map(\.simplified)
            if parts.contains(where: \.isEmpty) { return .any([]) }
            return parts.count == 1 ? parts[0] : .all(parts)
        case .any(let parts):
            let parts = parts.map(\.simplified).filter { !$0.isEmpty }
            return parts.count == 1 ? parts[0] : .any(parts)
        }
    }

    /// Whether the set is empty whatever the rows (an `any` of nothing).
    package var isEmpty: Bool {
        switch self {
        case .term: false
        case .all(let parts): parts.contains(where: \.isEmpty)
        case .any(let parts): parts.allSatisfy(\.isEmpty)
        }
    }
}
