public import FeedCore
import Foundation

/// Renders stream pages in the documented shapes.
public enum StreamRenderer {
    /// The page in `format`: JSON and JSONL as documented (JSONL is empty for an empty page),
    /// `table` in `style` (see ``TableStyle``) with the page line as its footer, Atom and JSON Feed
    /// as documents named by `identity` carrying `nextCursor` (see ``AtomRenderer``, ``JSONFeedRenderer``).
    public static func render(
        _ page: StreamPage, format: OutputFormat, style: TableStyle = TableStyle(terminalWidth: 120),
        extra: [(String, JSON)] = [], identity: FeedIdentity = FeedIdentity(feeds: []), nextCursor: String? = nil
    ) -> RenderedOutput {
        switch format {
        case .atom:
            return RenderedOutput(body: AtomRenderer.document(page.entries, identity: identity, nextCursor: nextCursor))
        case .jsonfeed:
            return RenderedOutput(body: JSONFeedRenderer.document(page.entries, identity: identity, nextCursor: nextCursor))
        case .json:
            var fields: [(String, JSON)] = [
                ("page", .int(page.page)), ("per_page", .int(page.perPage)), ("total_items", .int(page.totalItems)),
                ("total_pages", .int(page.totalPages)),
            ]
            fields += extra
            fields.append(("items", .array(page.entries.map(itemJSON))))
            return RenderedOutput(body: JSON.object(fields).serialized() + "\n")
        case .jsonl:
            return RenderedOutput(body: page.entries.map { itemJSON($0).serialized() + "\n" }.joined())
        case .table:
            return table(page, style: style)
        }
    }

    /// The JSON object of one entry: `id, feed, feeds, source, title, summary, url, author, image_url,
    /// published, updated, tags` (`tags`: the labels of the configuration's tag rules, in rule
    /// order; empty when none applies).
    public static func itemJSON(_ entry: StreamEntry) -> JSON {
        let item = entry.item
        let author: JSON =
            item.author.map {
                .object([
                    ("name", .string($0.name)), ("url", .optionalString($0.url)),
                    ("avatar_url", .optionalString($0.avatarURL)),
                ])
            } ?? .null
        return .object([
            ("id", .string(item.id)),
            ("feed", .string(entry.feed)),
            ("feeds", .array(entry.feeds.map(JSON.string))),
            ("source", .string(entry.source)),
            ("title", .string(item.title)),
            ("summary", .optionalString(item.summary)),
            ("url", .optionalString(item.url)),
            ("author", author),
            ("image_url", .optionalString(item.imageURL)),
            ("published", .optionalString(item.published.map(ISO8601.string(from:)))),
            ("updated", .optionalString(item.updated.map(ISO8601.string(from:)))),
            ("tags", .array(entry.tags.map(JSON.string))),
        ])
    }

    static func table(_ page: StreamPage, style: TableStyle) -> RenderedOutput {
        let pageLine =
            "page \(page.page)/\(max(page.totalPages, 1)) · \(Plural.of(page.totalItems, "item")) · \(page.perPage) per page"
        return table(page.entries, style: style, empty: emptyMessage(page), footer: [pageLine])
    }

    /// Rows of `entries` under a header; `empty` replaces them all when there are none (on a
    /// terminal; elsewhere the header stays alone and `empty` joins the footer).
    static func table(_ entries: [StreamEntry], style: TableStyle, empty: String, footer: [String]) -> RenderedOutput {
        guard !entries.isEmpty else {
            return style.isTerminal
                ? RenderedOutput(body: empty + "\n")
                : RenderedOutput(body: TableLayout(entries: [], style: style).header + "\n", footer: [empty])
        }
        let layout = TableLayout(entries: entries, style: style)
        let lines = [layout.header] + entries.map(layout.row)
        return RenderedOutput(body: lines.joined(separator: "\n") + "\n", footer: footer)
    }

    static func emptyMessage(_ page: StreamPage) -> String {
        page.totalItems == 0 ? "(no items)" : "(page \(page.page) is past the end: \(Plural.of(page.totalPages, "page")))"
    }

    static func feedsLabel(_ entry: StreamEntry) -> String {
        entry.feeds.count == 1 ? entry.feed : entry.feeds.joined(separator: "+")
    }

    /// The title as the table shows it: `[security, urgent] Title` when tag rules label the
    /// entry, else the title alone.
    static func taggedTitle(_ entry: StreamEntry) -> String {
        entry.tags.isEmpty ? entry.item.title : "[" + entry.tags.joined(separator: ", ") + "] " + entry.item.title
    }

}

/// A JSON value with ordered object keys, serialised compactly.
///
/// Not `indirect`: arrays and objects hold their elements in array storage already, and boxing
/// every scalar cost a page of 50 items about 700 allocations.
public enum JSON: Sendable {
    case null
    case bool(Bool)
    case int(Int)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])

    /// `.string` or `.null`.
    public static func optionalString(_ value: String?) -> JSON { value.map(JSON.string) ?? .null }

    /// Compact JSON text.
    public func serialized() -> String {
        var out: [UInt8] = []
        out.reserveCapacity(1024)
        write(into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the compact JSON text, in UTF-8.
    func write(into out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
        case .int(let value): out.append(contentsOf: String(value).utf8)
        case .string(let value): JSONValue.appendQuoted(value, to: &out)
        case .array(let values):
            out.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                value.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let fields):
            out.append(UInt8(ascii: "{"))
            for (index, (key, value)) in fields.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSONValue.appendQuoted(key, to: &out)
                out.append(UInt8(ascii: ":"))
                value.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }
}
