import FeedCore
import Foundation

/// The entry being read: each field keeps the value of the most preferred element seen so far.
///
/// Every element that can fill a field offers its value with a rank (``Rank``, lower is
/// preferred; docs/sources-feed.md lists them). A value replaces the field's only when its rank
/// is lower than the rank that filled it, so among elements of one rank the first in document
/// order wins, whatever order the elements come in. Authors are a list: the authors of the most
/// preferred element kind, in document order. Before reading an element's text the parser asks
/// ``wants(_:_:)``, so the text of an element that could not win is never decoded.
struct EntryDraft {
    /// The fields an element can fill.
    enum Field: Int, CaseIterable {
        case id, title, link, published, updated, authors, image, summary
    }

    /// How a summary's bytes are turned into plain text at the end.
    enum Markup {
        /// HTML: markup stripped, entities decoded (``HTMLText/plainText(bytes:)``).
        case html
        /// Text: only whitespace folded (``HTMLText/fold(bytes:)``).
        case text
    }

    /// The entry's fields (summary and categories are filled at the end and as read).
    var entry = FeedEntry()
    /// The rank that filled each ``Field``, one byte per field at `8 × rawValue` (`0xFF`: not
    /// filled): a word, not an array, so a draft allocates nothing of its own.
    private var ranks = UInt64.max
    /// The chosen summary's bytes, plain-texted once, in ``finish()``.
    private var summaryBytes: [UInt8]?
    private var summaryMarkup = Markup.text

    /// Whether a value of `rank` for `field` would be kept.
    func wants(_ field: Field, _ rank: UInt8) -> Bool { rank < self.rank(field) }

    /// The rank that filled `field`, `0xFF` when none did.
    private func rank(_ field: Field) -> UInt8 { UInt8(truncatingIfNeeded: ranks >> UInt64(field.rawValue * 8)) }

    /// Marks `field` as filled by `rank`; `false` (and nothing marked) when it could not win.
    private mutating func claim(_ field: Field, _ rank: UInt8) -> Bool {
        guard rank < self.rank(field) else { return false }
        let shift = UInt64(field.rawValue * 8)
        ranks = ranks & ~(0xFF << shift) | UInt64(rank) << shift
        return true
    }

    /// A field that holds one value: the ``Field`` whose rank it keeps and where the entry holds it.
    struct Slot<Value> {
        let field: Field
        let keyPath: WritableKeyPath<FeedEntry, Value?>
    }

    /// Offers a value for a one-value field (`offer(title, to: .title, rank: Rank.title)`). `nil`
    /// (no text, an unreadable date) is no offer, leaving the field to lesser elements.
    mutating func offer<Value>(_ value: Value?, to slot: Slot<Value>, rank: UInt8) {
        if let value, claim(slot.field, rank) { entry[keyPath: slot.keyPath] = value }
    }

    /// Offers an author: one of `rank` joins those already read of the same rank; a more
    /// preferred rank replaces them.
    mutating func offerAuthor(_ author: FeedAuthor?, rank: UInt8) {
        guard let author else { return }
        let current = self.rank(.authors)
        if rank < current {
            _ = claim(.authors, rank)
            entry.authors = [author]
        } else if rank == current {
            entry.authors.append(author)
        }
    }

    /// Offers the summary's source bytes. Blank ones (only whitespace) are no offer, leaving the
    /// field to lesser elements; markup that holds no text still wins, and leaves no summary.
    mutating func offerSummary(_ bytes: [UInt8], markup: Markup, rank: UInt8) {
        guard !bytes.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 10 || $0 == 13 }), claim(.summary, rank) else { return }
        summaryBytes = bytes
        summaryMarkup = markup
    }

    /// Adds a non-empty category not yet listed.
    mutating func addCategory(_ text: String?) {
        guard let category = text.flatMap(HTMLText.trimmed), !entry.categories.contains(category) else { return }
        entry.categories.append(category)
    }

    /// The entry, its summary turned into plain text, `feedAuthors` standing in for missing authors.
    func finish(feedAuthors: [FeedAuthor]) -> FeedEntry {
        var finished = entry
        if let summaryBytes {
            let text = summaryBytes.withUnsafeBufferPointer {
                summaryMarkup == .html ? HTMLText.plainText(bytes: $0) : HTMLText.fold(bytes: $0)
            }
            finished.summary = text.isEmpty ? nil : text
        }
        if finished.authors.isEmpty { finished.authors = feedAuthors }
        return finished
    }
}

extension EntryDraft.Slot<String> {
    /// The id (the entry's `guid`).
    static var id: Self { Self(field: .id, keyPath: \.guid) }
    /// The title (plain text).
    static var title: Self { Self(field: .title, keyPath: \.title) }
    /// The link (absolute).
    static var link: Self { Self(field: .link, keyPath: \.link) }
    /// The image URL (absolute).
    static var image: Self { Self(field: .image, keyPath: \.imageURL) }
}

extension EntryDraft.Slot<Date> {
    /// The publication date.
    static var published: Self { Self(field: .published, keyPath: \.published) }
    /// The modification date.
    static var updated: Self { Self(field: .updated, keyPath: \.updated) }
}
