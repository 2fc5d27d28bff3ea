import FeedaggKit
import Foundation

/// What the page shows of one feed: its name, source type, stored items, when a pull last
/// succeeded and the last pull's error. Not shown: the configuration path, the credential's name,
/// the store: nothing of them belongs on a page.
struct FeedRow {
    var feedName: String
    var feedSource: String
    var itemCount: String
    var updatedMachine: String?
    /// `2026-11-25 17:14 UTC`, or "never".
    var updatedShort: String
    var lastError: String?

    init(_ status: FeedStatus) {
        feedName = status.name
        feedSource = status.source
        itemCount = status.stored.map { String($0.itemCount) } ?? "0"
        let updated = status.stored?.lastSuccessAt
        updatedMachine = updated.map(WebDate.machine)
        updatedShort = updated.map(WebDate.short) ?? "never"
        lastError = HTMLText.cleaned(status.stored?.lastError.flatMap { $0.isEmpty ? nil : $0 })
    }
}
