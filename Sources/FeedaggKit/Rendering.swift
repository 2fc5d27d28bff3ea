public import FeedCore
import Foundation

/// Output formats of the unified stream.
public enum OutputFormat: String, Sendable, CaseIterable {
    /// Aligned columns for people.
    case table
    /// One JSON page object.
    case json
    /// One JSON object per line, per item.
    case jsonl
}

/// Renders stream pages in the documented shapes.
public enum StreamRenderer {
    /// The page in `format`, ending with a newline (empty for an empty JSONL page).
    public static func render(_ page: StreamPage, format: OutputFormat, width: Int = 120, extra: [(String, JSON)] = [])
        -> String
    {
        switch format {
        case .json:
            var fields: [(String, JSON)] = [
                ("page", .int(page.page)), ("per_page", .int(page.perPage)), ("total_items", .int(page.totalItems)),
                ("total_pages", .int(page.totalPages)),
            ]
            fields += extra
            fields.append(("items", .array(page.entries.map(itemJSON))))
            return JSON.object(fields).serialized() + "\n"
        case .jsonl:
            return page.entries.map { itemJSON($0).serialized() + "\n" }.joined()
        case .table:
            return table(page, width: width)
        }
    }

    /// The JSON object of one entry: `id, feed, feeds, source, title, summary, url, author, image_url, published, updated`.
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
        ])
    }

    static func table(_ page: StreamPage, width: Int) -> String {
        guard !page.entries.isEmpty else {
            return page.totalItems == 0
                ? "(no items)\n" : "(page \(page.page) is past the end: \(page.totalPages) pages)\n"
        }
        let feedWidth = min(24, page.entries.map { feedsLabel($0).count }.max() ?? 4)
        let titleWidth = min(40, max(5, page.entries.map { $0.item.title.count }.max() ?? 5))
        var lines = [
            pad("DATE", 10) + "  " + pad("FEED", feedWidth) + "  " + pad("TITLE", titleWidth) + "  SUMMARY"
        ]
        for entry in page.entries {
            let date = entry.item.sortDate.map { String(ISO8601.string(from: $0).prefix(10)) } ?? "-"
            var line =
                pad(date, 10) + "  " + pad(feedsLabel(entry), feedWidth) + "  " + pad(entry.item.title, titleWidth) + "  "
                + (entry.item.summary ?? entry.item.url ?? "")
            line = line.replacingOccurrences(of: "\n", with: " ")
            if line.count > width { line = String(line.prefix(max(0, width - 1))) + "…" }
            lines.append(line)
        }
        lines.append(
            "page \(page.page)/\(max(page.totalPages, 1)) · \(page.totalItems) items · \(page.perPage) per page")
        return lines.joined(separator: "\n") + "\n"
    }

    static func feedsLabel(_ entry: StreamEntry) -> String {
        entry.feeds.count == 1 ? entry.feed : entry.feeds.joined(separator: "+")
    }

    static func pad(_ text: String, _ width: Int) -> String {
        if text.count > width { return String(text.prefix(max(0, width - 1))) + "…" }
        return text + String(repeating: " ", count: width - text.count)
    }
}

/// A JSON value with ordered object keys, serialised compactly.
public indirect enum JSON: Sendable {
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
        var out = ""
        write(into: &out)
        return out
    }

    func write(into out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .int(let value): out += String(value)
        case .string(let value): JSON.escape(value, into: &out)
        case .array(let values):
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                value.write(into: &out)
            }
            out += "]"
        case .object(let fields):
            out += "{"
            for (index, (key, value)) in fields.enumerated() {
                if index > 0 { out += "," }
                JSON.escape(key, into: &out)
                out += ":"
                value.write(into: &out)
            }
            out += "}"
        }
    }

    static func escape(_ text: String, into out: inout String) {
        JSONValue.appendQuoted(text, to: &out)
    }
}
