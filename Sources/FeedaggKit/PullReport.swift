public import FeedCore
public import FeedStore

/// What a pull produced.
public struct PullReport: Sendable {
    /// Per-feed results, in declaration order. Their ``FeedResult/items`` are empty once committed
    /// (the store holds them) unless ``PullSettings/retainItems`` is set.
    public var results: [FeedResult]
    /// What each feed's commit did to the store, by feed name (absent when the commit failed).
    public var commits: [String: CommitSummary]
    /// Feeds whose commit failed, with the store's message.
    public var storeFailures: [String: StoreError]
    /// The requested page of the unified stream, read back from the store.
    public var page: StoredStreamPage
    /// The store the pull wrote (removed again when it was temporary).
    public var storePath: String
    /// Whether the store was temporary (removed after the pull: nothing to page afterwards).
    public var storeRemoved = false
    /// What a `--limit` pull found: the newest items and how each feed was walked (`nil` otherwise).
    public var newest: NewestItems?
    /// The feeds of the printed stream (every declared feed, in declaration order): what an Atom or
    /// JSON Feed document of the page is named after (``FeedIdentity``).
    public var streamFeeds: [String] = []

    /// Success, partial failure or total failure.
    public var exitStatus: ExitStatus {
        let failed = results.filter { !$0.succeeded || storeFailures[$0.feed] != nil }.count
        if failed == 0 { return .success }
        return failed == results.count ? .allFailed : .partialFailure
    }
}
