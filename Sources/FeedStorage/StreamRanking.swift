/// The feeds a stream read covers, in rank order: the order the caller declares them (feeds.yaml),
/// each once, leaving out feeds the store does not hold and, when `sources` is given, feeds of other
/// source types. Rank breaks ties between items of equal sort key and orders an item's feeds.
public enum StreamRanking {
    /// `feeds` ranked: the first occurrence of each feed `sourceByFeed` holds, of a source in `sources`.
    public static func ranked(_ feeds: [String], sourceByFeed: [String: String], sources: [String]?) -> [String] {
        var ranked: [String] = []
        var seen: Set<String> = []
        for feed in feeds where !seen.contains(feed) {
            guard let source = sourceByFeed[feed] else { continue }
            if let sources, !sources.contains(source) { continue }
            seen.insert(feed)
            ranked.append(feed)
        }
        return ranked
    }
}
