import FeedCore
@testable import FeedStore
@testable import FeedaggKit
import Foundation

/// Entries and feeds for the page tests.
enum PageFixtures {
    static let hostileTitle = "<img src=x onerror=alert(1)>"
    static let hostileSummary = "\"><script>alert('summary')</script>"
    static let hostileAuthor = "<b onmouseover=alert(2)>mallory</b>"
    static let hostileFeedError = "HTTP 500 from <svg onload=alert(3)>"

    static func entry(
        _ id: String, title: String, url: String? = nil, summary: String? = nil, author: FeedAuthor? = nil,
        image: String? = nil, updated: Date? = Date(timeIntervalSince1970: 1_764_000_000), feeds: [String] = ["repos"],
        source: String = "github.repos"
    ) -> StreamEntry {
        StreamEntry(
            item: FeedItem(
                id: id, title: title, summary: summary, url: url, author: author, imageURL: image, updated: updated),
            feed: feeds[0], feeds: feeds, source: source)
    }

    static func feed(
        _ name: String, source: String = "github.repos", items: Int = 3, updated: Date? = Date(timeIntervalSince1970: 1_764_000_000),
        error: String? = nil, config: String? = "/home/someone/private/feeds.yaml", credential: String? = nil
    ) -> FeedStatus {
        var summary = FeedSummary(name: name, source: source, itemCount: items, missingCount: 0)
        summary.lastSuccessAt = updated
        summary.lastAttemptAt = updated
        summary.lastError = error
        summary.config = config
        return FeedStatus(name: name, source: source, declared: true, stored: summary, credential: credential)
    }
}
