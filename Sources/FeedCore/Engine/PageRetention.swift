/// What a fetched page keeps for whoever takes it.
enum PageRetention: Sendable {
    /// No page sink: the body stays in the cache entry (the pull's result holds the cache), and
    /// the items keep their raw JSON.
    case everything
    /// A sink that stores raw JSON: the items keep it, the body is not kept apart.
    case items
    /// A sink that keeps no raw JSON: each item's digest is taken and its `raw` dropped at decode.
    case itemsWithoutRaw

    /// The retention for a walk with `sink`.
    init(sink: (any PageSink)?) {
        guard let sink else {
            self = .everything
            return
        }
        self = sink.keepsRawJSON ? .items : .itemsWithoutRaw
    }
}
