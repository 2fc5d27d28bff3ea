/// How a source's items are ordered on the wire, which the engine uses to stop early.
public enum ItemOrdering: Sendable, Equatable {
    /// Newest first by the items' `sortDate`.
    case newestFirst
    /// No date order (e.g. members by login).
    case unordered
}
