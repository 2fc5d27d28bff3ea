import FeedCore
import Foundation

/// What the template shows of one stream entry. Every field is plain text: the template escapes it
/// (swift-mustache escapes `{{…}}` for HTML) after ``HTMLText`` removed its control characters,
/// and every URL went through ``WebURL/safe(_:)``.
/// Field names are unique across the page's models, so a missing value never falls back to a
/// field of an enclosing section (Mustache looks names up the context stack).
struct ItemCard {
    /// The entry's stream identity (the item id), for the script's duplicate check.
    var itemID: String
    var title: String
    /// The link the title points to, when it is an `http`/`https` URL.
    var link: String?
    var summary: String?
    /// The photo: the item's image when it is not just its author's avatar.
    var photo: String?
    var authorName: String?
    var authorLink: String?
    var avatar: String?
    /// The feeds that carry it, in feed order.
    var feedNames: [String]
    /// The labels of the configuration's tag rules.
    var tagLabels: [String]
    var sourceType: String
    /// ISO 8601, for `<time datetime>`.
    var dateMachine: String?
    /// `2026-11-25 17:14 UTC`.
    var dateShort: String?
    /// "published" or "updated", whichever date is shown.
    var dateKind: String?

    init(_ entry: StreamEntry) {
        let item = entry.item
        itemID = HTMLText.cleaned(item.id)
        title = HTMLText.cleaned(item.title)
        link = WebURL.safe(item.url)
        summary = HTMLText.cleaned(item.summary.flatMap { $0.isEmpty ? nil : $0 })
        avatar = WebURL.safe(item.author?.avatarURL)
        let image = WebURL.safe(item.imageURL)
        photo = image == avatar ? nil : image
        authorName = HTMLText.cleaned(item.author.flatMap { $0.name.isEmpty ? nil : $0.name })
        authorLink = authorName == nil ? nil : WebURL.safe(item.author?.url)
        feedNames = entry.feeds.isEmpty ? [entry.feed] : entry.feeds
        tagLabels = entry.tags.map { HTMLText.cleaned($0) }
        sourceType = entry.source
        // The date the stream sorts by: updated, else published (the JSON API carries no other, so
        // the cards app.js adds show the same).
        let date = item.sortDate
        dateMachine = date.map(WebDate.machine)
        dateShort = date.map(WebDate.short)
        dateKind = item.updated != nil ? "updated" : item.published != nil ? "published" : nil
    }
}
