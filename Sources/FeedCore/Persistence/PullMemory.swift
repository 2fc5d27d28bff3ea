public import Foundation

/// What the engine may remember between pulls; the store implements it.
public protocol PullMemory: Sendable {
    /// The key remembering the response to `url`: the URL with secrets redacted (never a credential).
    func key(for url: URL) -> String
    /// The last successful response for `key` (see ``key(for:)``), if remembered.
    func cachedResponse(for key: String) -> CachedResponse?
    /// Whether `feed`'s pull may be incremental (and what page 1's request needs); `nil` to walk in
    /// full. Read before page 1's request, so it must be cheap (one row).
    func baseline(for feed: String) -> IncrementalBaseline?
    /// The digests of `feed`'s stored items, read by an incremental walk of a newest-first feed only
    /// after page 1 answered with a changed page; `nil` when they cannot be read (the walk then
    /// goes on in full).
    func storedDigests(for feed: String) -> StoredDigests?
    /// The ids of every item the store holds of `feed`, those an unfinished pull staged included:
    /// where a resumed walk's re-walk of the listing's head stops (see ``ResumePoint/Head``);
    /// `nil` when they cannot be read.
    func heldItemIDs(for feed: String) -> Set<String>?
    /// The newest `updated` date among `feed`'s stored items, read only for a source with a `since`
    /// filter, before page 1's request.
    func newestUpdate(for feed: String) -> Date?
    /// How many pages `feed` had when it was last walked in full, even if a later pull failed:
    /// the engine may request that many pages at once before page 1 answers.
    func knownPageCount(for feed: String) -> Int?
}

extension PullMemory {
    /// `url` with secrets redacted.
    public func key(for url: URL) -> String { Redaction.redact(url) }

    /// No baseline: every pull walks in full (conditional requests still apply).
    public func baseline(for feed: String) -> IncrementalBaseline? { nil }

    /// No stored digests: an incremental walk does not stop at stored items.
    public func storedDigests(for feed: String) -> StoredDigests? { nil }

    /// No stored ids: a resumed walk re-walking the head stops at items it fetched itself.
    public func heldItemIDs(for feed: String) -> Set<String>? { nil }

    /// No stored date: no `since` filter.
    public func newestUpdate(for feed: String) -> Date? { nil }

    /// No remembered page count: no speculative requests.
    public func knownPageCount(for feed: String) -> Int? { nil }
}
