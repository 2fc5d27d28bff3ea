package import Synchronization

/// The sets a search's count is made of, kept until the store changes: each frequent term's rows
/// (the keys of the full-text index) and, per listing, which rows are entries of their own
/// (``EntryDocuments``). Each engine reads them (SQLite's `SearchDocumentCache`, PostgreSQL's
/// `PostgresSearchDocuments`); a count is then set arithmetic (``TextSet/documents(_:)``).
///
/// A count of a words-only query was the index's own count plus a correction for the shared rows:
/// at 1,000,000 items, `swift OR rust` took 22 ms on SQLite (FTS5 decodes every entry of both
/// words' lists, for every request) and about 200 ms on PostgreSQL (every matching heap row is
/// read). A server answering many different searches sees the same frequent words again and
/// again: each word's rows are read once per change of the store, and a count is then tens of
/// microseconds of bitmap arithmetic, with only the rare words of each query read from the index.
package final class SearchDocumentCache: Sendable {
    /// A term's rows are kept from this many on; fewer cost less to read again than to keep, and
    /// a rare word of every query would otherwise push the frequent ones out. Tests lower it to
    /// keep every term.
    package let keptTermMinimum = Atomic<Int>(4_096)

    /// The frequent terms' rows, by the index's expression of the term: at most 32 (a bitmap of a
    /// 1,000,000-item store is 125 KB, so 4 MB).
    package let terms = StoreChangeCache<String, DocumentSet>(capacity: 32)
    /// The entry sets of each listing (in rank order).
    package let entries = StoreChangeCache<[String], EntryDocuments>(capacity: 8)
    /// Terms asked for once since the store last changed: an engine whose read of a frequent term
    /// costs more than counting it (PostgreSQL) reads it on its second request, so that a one-shot
    /// `show` never pays for a set it will not use again.
    package let asked = StoreChangeCache<String, Bool>(capacity: 1_024)
    /// The full reads of frequent terms in progress, by expression and change number: concurrent
    /// askers share one (PostgreSQL's reads; SQLite's cost a few milliseconds and are not shared).
    package let termReads = SharedReads<DocumentSet>()

    package init() {}
}
