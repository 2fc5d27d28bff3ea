public import FeedCore
public import Foundation

/// The plugin protocol's output: one JSON object per line.
///
/// - `{"item": {...}}` — one item: `id` (string or integer) and `title` required; `url`, `summary`,
///   `author`, `author_url`, `avatar`, `image` strings; `published`, `updated` RFC 3339 timestamps.
/// - `{"next": "cursor"}` — the cursor of the next page (absent, null or empty: last page).
/// - `{"not_modified": true}` — nothing changed since the validators in the request.
/// - `{"etag": "…"}` — a validator the next request will carry as `etag`.
///
/// Blank lines are skipped. Anything else — a line that is not JSON, an unknown key, an item of
/// the wrong shape — fails the page with its line number and a snippet.
public enum ExecLines {
    /// What the transport needs before decoding: `not_modified` and `etag` (malformed lines are
    /// left for ``decode(_:feedName:)`` to report).
    public static func control(in output: Data) -> (notModified: Bool, etag: String?) {
        var notModified = false
        var etag: String?
        for line in output.split(separator: 0x0A) where line.contains(where: { $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "g") }) {
            guard let value = try? JSONValue.parse(Data(line)) else { continue }
            if case .bool(true)? = value["not_modified"] { notModified = true }
            if let text = value["etag"]?.scalarText, case .string? = value["etag"] { etag = text }
        }
        return (notModified, etag)
    }

    /// The items and next cursor of one page of output; items are named `<feed>:<id>`.
    ///
    /// An error quotes the offending line (its first 80 characters, control characters removed)
    /// with every one of `secrets` redacted first: a plugin that prints its API key by mistake
    /// does not have it stored as the feed's last error.
    public static func decode(
        _ output: Data, feedName: String, secrets: PluginSecrets = PluginSecrets([:])
    ) throws(PageDecodeError) -> DecodedPage {
        do {
            return try lines(output, feedName: feedName, secrets: secrets)
        } catch {
            throw PageDecodeError(path: secrets.redact(error.path), secrets.redact(error.message))
        }
    }

    private static func lines(_ output: Data, feedName: String, secrets: PluginSecrets) throws(PageDecodeError) -> DecodedPage {
        var items: [FeedItem] = []
        var next: String?
        var number = 0
        for line in output.split(separator: 0x0A, omittingEmptySubsequences: false) {
            number += 1
            let bytes = Data(line)
            if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            let path = "line \(number)"
            let value: JSONValue
            do {
                value = try JSONValue.parse(bytes)
            } catch {
                throw PageDecodeError(path: path, "\(error.message): \(snippet(bytes, secrets))")
            }
            guard case .object(let members) = value, members.count == 1, let member = members.first else {
                throw PageDecodeError(
                    path: path,
                    "expected one object with one key (item, next, not_modified or etag), found \(snippet(bytes, secrets))")
            }
            switch member.key {
            case "item":
                items.append(try item(member.value, feedName: feedName, path: path + ": $.item", secrets: secrets))
            case "next":
                switch member.value {
                case .string(let cursor): next = cursor
                case .null: next = nil
                default: throw PageDecodeError(path: path + ": $.next", "expected a string or null, found \(member.value.kindDescription)")
                }
            case "not_modified", "etag":
                break
            default:
                throw PageDecodeError(
                    path: path, "unknown key '\(member.key)' (expected item, next, not_modified or etag): \(snippet(bytes, secrets))")
            }
        }
        return DecodedPage(items: items, nextCursor: next)
    }

    /// One item object.
    static func item(_ value: JSONValue, feedName: String, path: String, secrets: PluginSecrets) throws(PageDecodeError) -> FeedItem {
        guard case .object(let members) = value else {
            throw PageDecodeError(path: path, "expected an object, found \(value.kindDescription)")
        }
        let known: Set<String> = [
            "id", "title", "url", "summary", "author", "author_url", "avatar", "image", "published", "updated", "categories",
        ]
        if let unknown = members.first(where: { !known.contains($0.key) }) {
            throw PageDecodeError(path: path + ".\(unknown.key)", "unknown item field (expected one of \(known.sorted().joined(separator: ", ")))")
        }
        func string(_ key: String) throws(PageDecodeError) -> String? {
            guard let field = value[key], !field.isNull else { return nil }
            guard case .string(let text) = field else {
                throw PageDecodeError(path: "\(path).\(key)", "expected a string, found \(field.kindDescription)")
            }
            return ItemText.nonEmpty(text)
        }
        func date(_ key: String) throws(PageDecodeError) -> Date? {
            guard let text = try string(key) else { return nil }
            guard let date = ISO8601.date(from: text) else {
                throw PageDecodeError(path: "\(path).\(key)", "expected an RFC 3339 timestamp, found '\(secrets.redact(text, cutAt: 40))'")
            }
            return date
        }
        let id: String
        switch value["id"] {
        case .string(let text)? where !text.isEmpty: id = text
        case .number(let text)?: id = text
        case let other?: throw PageDecodeError(path: path + ".id", "expected a non-empty string or a number, found \(other.kindDescription)")
        case nil: throw PageDecodeError(path: path + ".id", "missing required field 'id'")
        }
        guard let title = try string("title") else {
            throw PageDecodeError(path: path + ".title", "missing required field 'title'")
        }
        let author = try string("author").map { FeedAuthor(name: $0, url: try? string("author_url"), avatarURL: try? string("avatar")) }
        // Categories (tags), as `source: feed` keeps them: in the item's raw JSON, a list of strings.
        if let categories = value["categories"], !categories.isNull {
            guard case .array(let elements) = categories else {
                throw PageDecodeError(path: path + ".categories", "expected a list of strings, found \(categories.kindDescription)")
            }
            for (index, element) in elements.enumerated() {
                guard case .string = element else {
                    throw PageDecodeError(
                        path: path + ".categories[\(index)]", "expected a string, found \(element.kindDescription)")
                }
            }
        }
        return FeedItem(
            id: feedName + ":" + id, title: title, summary: try string("summary"), url: try string("url"), author: author,
            imageURL: try string("image"), published: try date("published"), updated: try date("updated"),
            raw: value.serialized)
    }

    /// The first 80 characters of a line, control characters removed, then `secrets` redacted
    /// (before the cut, so no piece of a secret is left at its end).
    static func snippet(_ bytes: Data, _ secrets: PluginSecrets) -> String {
        let text = String(decoding: bytes.prefix(4096), as: UTF8.self)
        let clean = String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.properties.generalCategory != .control }))
        return "'" + secrets.redact(clean, cutAt: 80) + "'"
    }
}

extension JSONValue {
    var isNull: Bool { if case .null = self { true } else { false } }
}
