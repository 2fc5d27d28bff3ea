/// The content digest (``FeedItem/contentDigest``) of every stored item of one feed, by item id:
/// what an incremental walk of a newest-first feed compares a fetched page against, to stop at a
/// page that holds only items stored unchanged.
public struct StoredDigests: Sendable, Equatable {
    /// Digests by item id.
    public var digests: [String: Int64]

    /// Creates the digests.
    public init(_ digests: [String: Int64]) {
        self.digests = digests
    }

    /// Whether `item` is stored with exactly this content.
    public func isStoredUnchanged(_ item: FeedItem) -> Bool {
        digests[item.id] == item.contentDigest
    }
}
