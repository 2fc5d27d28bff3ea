import Foundation

/// The unified stream as an `AsyncSequence` that fetches pages only as the consumer reads:
/// a k-way merge over paged feeds, newest first.
///
/// It yields the entries ``UnifiedStream/merge(_:)`` would produce over the fully fetched feeds,
/// in the same order (date newest first; ties by feed order, then wire order) and with the same
/// de-duplication (canonical URL, else id; the entry comes from the first feed carrying it and
/// lists every feed that carries it), but it yields an entry only once it is *certain*: once every
/// other feed's unfetched remainder is known to be older.
///
/// - A **date-ordered** feed (``FeedSource/ordering`` is ``ItemOrdering/newestFirst``, e.g.
///   `github.repos` with `sort: updated`) is walked one page at a time with a ``FeedPager``; its
///   unfetched pages can only hold items at or before the oldest date fetched so far, so an entry
///   strictly newer than that is safe from it.
/// - A feed that is **not date-ordered** could hold the newest item on its last page: it is fetched
///   completely (with the engine's fan-out) before the first entry is yielded.
/// - **Undated** items (organisation members) come after every dated entry, each feed in wire
///   order. Their place in ``UnifiedStream/merge(_:)`` is spread through the dated items by the
///   total count of dated items, which only a complete fetch knows; a stream read to its end
///   (every page fetched) ends with them.
///
/// **Prefetch.** The next page of a date-ordered feed is needed once the consumer reaches that
/// feed's oldest fetched date. When at most ``prefetchDistance`` entries can still be yielded before
/// that point (the feed's buffered items, plus the other feeds' buffered items newer than its
/// oldest date), the page is requested at once, concurrently, so that iteration rarely waits —
/// the infinite scroll of a table view loading the next page as the user nears the end. With a
/// ``limit``, a page is never prefetched when the entries left to yield fit before that point.
///
/// **Failures.** A feed that fails stops there: its items fetched so far are merged, the other
/// feeds go on, and the failure (feed name, URL, page, cause) is in ``Iterator/finish()``'s reports
/// and in ``PullEvents/feedFinished``.
///
/// **Cancellation.** When the consuming task is cancelled, or when the iterator is finished or
/// released, pages in flight are cancelled and nothing more is fetched.
///
/// **Known difference from the full merge.** When two feeds carry the same item with *different*
/// dates and the earlier feed's copy is on a page not fetched yet when the other copy is due, the
/// entry is yielded from the copy met first (and never again). Copies with the same date, the usual
/// case of one object listed by two feeds, are merged exactly as ``UnifiedStream/merge(_:)`` does.
///
/// ```swift
/// let stream = LazyUnifiedStream(feeds: feeds, engine: engine, prefetchDistance: 20)
/// for await entry in stream.prefix(50) {
///     print(entry.item.title)
/// }
/// ```
public struct LazyUnifiedStream: AsyncSequence, Sendable {
    /// Merged entries, newest first, each yielded once every other feed is known to hold nothing newer.
    public typealias Element = StreamEntry
    /// Never throws: a feed's failure ends that feed only (see ``Iterator/finish()``).
    public typealias Failure = Never

    /// The feeds, in declaration order (the tie and de-duplication order).
    public let feeds: [Feed]
    /// The engine whose requests, retries, rate limits and memory every page goes through.
    public let engine: FeedEngine
    /// How close (in entries) the consumer may get to a feed's fetched end before its next page is requested.
    public let prefetchDistance: Int
    /// The most entries to yield, if bounded (`pull --limit N`); pages that cannot be needed for them are not fetched.
    public let limit: Int?

    /// A stream over `feeds` fetching through `engine`.
    public init(feeds: [Feed], engine: FeedEngine, prefetchDistance: Int = 20, limit: Int? = nil) {
        self.feeds = feeds
        self.engine = engine
        self.prefetchDistance = Swift.max(0, prefetchDistance)
        self.limit = limit.map { Swift.max(0, $0) }
    }

    /// An iterator with its own walk of every feed, starting at page 1.
    public func makeAsyncIterator() -> Iterator {
        Iterator(merge: LazyMerge(feeds: feeds, engine: engine, prefetchDistance: prefetchDistance, limit: limit))
    }

    /// Iterates the stream. Each iterator fetches on its own; release it (or call ``finish()``) to stop fetching.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        let merge: LazyMerge

        /// The next entry, fetching pages as needed; `nil` at the end, at the ``LazyUnifiedStream/limit``,
        /// after ``finish()``, or when the task is cancelled.
        public mutating func next() async -> StreamEntry? {
            await merge.next()
        }

        /// Stops fetching (pages in flight are cancelled) and reports every feed: its items fetched
        /// so far in wire order, pages, requests, failure and notes. Later ``next()`` calls return `nil`.
        public func finish() async -> [FeedReport] {
            await merge.finish()
        }
    }

    /// What the stream did with one feed.
    public struct FeedReport: Sendable {
        /// The feed's items fetched (wire order), pages, requests, error and notes.
        /// ``FeedResult/complete`` is true only when every page was fetched without failure.
        public var result: FeedResult
        /// Whether the feed was walked lazily (date-ordered) rather than fetched in full.
        public var dateOrdered: Bool
        /// The page count page 1 announced (`rel="last"`, `total_pages`), if any.
        public var announcedPages: Int?
        /// More pages exist that were not fetched because no entry read needed them.
        public var stoppedEarly: Bool
    }
}
