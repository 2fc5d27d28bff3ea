import Foundation

/// What a store knows about a feed before pulling it, so the pull can be incremental.
///
/// Only given for a feed whose last pull succeeded: a failed pull may have left a gap between the
/// newest items it stored and the older ones, which only a full walk closes.
///
/// It holds only what page 1's request needs and costs one row to read. The stored items' digests
/// (``StoredDigests``) and their newest `updated` date are read through ``PullMemory`` only when a
/// walk needs them: the digests once page 1 answered with a changed page, the date only for a source
/// with a `since` filter. An unchanged feed (page 1 answers `304`) then reads neither.
public struct IncrementalBaseline: Sendable, Equatable {
    /// Pages of the last complete walk, if any.
    public var pageCount: Int?

    /// Creates a baseline.
    public init(pageCount: Int?) {
        self.pageCount = pageCount
    }
}
