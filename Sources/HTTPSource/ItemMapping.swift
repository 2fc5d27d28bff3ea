public import FeedCore
public import Foundation

/// How one item field is computed from an item: a JSON path relative to the item (`$.name`,
/// `$` being the item), or a text template whose `{…}` placeholders are such paths without the
/// leading `$` (`"{description} ({language})"`, `"{owner.login}"`; `{{` and `}}` are literal braces).
public enum FieldExpression: Sendable, Equatable {
    /// The value at a path.
    case path(JSONPath)
    /// Literal text and placeholder paths, concatenated; an absent or null placeholder is empty.
    case template([TemplatePart])

    /// One piece of a text template.
    public enum TemplatePart: Sendable, Equatable {
        /// Text copied as is.
        case literal(String)
        /// The text of the item's value at a path.
        case placeholder(JSONPath)
    }

    /// Parses `text`: a JSON path when it starts with `$`, else a text template.
    ///
    /// - Throws: ``FieldExpressionError`` with the character offset of the problem.
    public init(_ text: String) throws(FieldExpressionError) {
        if text.hasPrefix("$") {
            do {
                self = .path(try JSONPath(text))
            } catch {
                throw FieldExpressionError(
                    "invalid JSON path '\(text)': \(error.message)", offset: error.offset ?? 0)
            }
            return
        }
        let characters = Array(text)
        var parts: [TemplatePart] = []
        var literal = ""
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character == "{", index + 1 < characters.count, characters[index + 1] == "{" {
                literal.append("{")
                index += 2
            } else if character == "}", index + 1 < characters.count, characters[index + 1] == "}" {
                literal.append("}")
                index += 2
            } else if character == "}" {
                throw FieldExpressionError("'}' without a matching '{' (write '}}' for a literal brace)", offset: index)
            } else if character == "{" {
                guard let close = characters[(index + 1)...].firstIndex(of: "}") else {
                    throw FieldExpressionError("'{' is not closed by '}' (write '{{' for a literal brace)", offset: index)
                }
                let inner = String(characters[(index + 1)..<close])
                guard !inner.isEmpty else { throw FieldExpressionError("empty placeholder '{}'", offset: index) }
                let pathText = inner.hasPrefix("[") ? "$" + inner : "$." + inner
                let path: JSONPath
                do {
                    path = try JSONPath(pathText)
                } catch {
                    // Offsets in `pathText` are shifted by the '$' (and '.') added in front.
                    let shift = inner.hasPrefix("[") ? 1 : 2
                    throw FieldExpressionError(
                        "invalid placeholder '{\(inner)}': \(error.message)",
                        offset: index + 1 + max(0, (error.offset ?? shift) - shift))
                }
                if !literal.isEmpty { parts.append(.literal(literal)) }
                literal = ""
                parts.append(.placeholder(path))
                index = close + 1
            } else {
                literal.append(character)
                index += 1
            }
        }
        if !literal.isEmpty { parts.append(.literal(literal)) }
        self = .template(parts)
    }

    /// The field's text in `item` (`nil` when absent, null or empty after trimming).
    ///
    /// - Parameter base: the item's own path in the page (`$.photos[3]`), for errors.
    /// - Throws: ``PageDecodeError`` when a path meets a value of the wrong kind or the value is
    ///   an object or array.
    public func text(in item: JSONValue, base: String) throws -> String? {
        switch self {
        case .path(let path):
            guard let value = try Self.value(at: path, in: item, base: base) else { return nil }
            guard let text = value.scalarText else {
                throw PageDecodeError(
                    path: JSONPath.render(path.components, prefix: base),
                    "expected a string or number, found \(value.kindDescription)")
            }
            return ItemText.nonEmpty(text)
        case .template(let parts):
            var out = ""
            for part in parts {
                switch part {
                case .literal(let text):
                    out += text
                case .placeholder(let path):
                    guard let value = try Self.value(at: path, in: item, base: base) else { continue }
                    guard let text = value.scalarText else {
                        throw PageDecodeError(
                            path: JSONPath.render(path.components, prefix: base),
                            "expected a string or number for a template placeholder, found \(value.kindDescription)")
                    }
                    out += text
                }
            }
            return ItemText.nonEmpty(out)
        }
    }

    /// The raw value at `path` (for dates, which may be numbers); templates yield their text.
    func value(in item: JSONValue, base: String) throws -> (JSONValue, String)? {
        switch self {
        case .path(let path):
            guard let value = try Self.value(at: path, in: item, base: base) else { return nil }
            return (value, JSONPath.render(path.components, prefix: base))
        case .template:
            guard let text = try text(in: item, base: base) else { return nil }
            return (.string(text), base)
        }
    }

    static func value(at path: JSONPath, in item: JSONValue, base: String) throws -> JSONValue? {
        do {
            return try path.evaluate(item, base: base)
        } catch {
            throw PageDecodeError(path: error.path, error.message)
        }
    }
}

/// A field expression that could not be parsed: a message and the 0-based character offset of
/// the problem, the same shape (and type) as a URI template's error.
public typealias FieldExpressionError = URITemplateError

/// How `published` and `updated` values are written.
public enum DateFormat: Sendable, Equatable {
    /// ISO 8601 / RFC 3339 text (the default).
    case iso8601
    /// Seconds since 1970 (a number or a numeric string).
    case unix
    /// Milliseconds since 1970.
    case unixMilliseconds
    /// A `DateFormatter` pattern (`yyyy-MM-dd HH:mm:ss`), read in UTC with the POSIX locale
    /// unless the pattern names a zone.
    case pattern(String)

    /// Reads `date_format`: `iso8601`, `unix`, `unix_ms`, or a pattern.
    public init(_ text: String) {
        switch text {
        case "iso8601": self = .iso8601
        case "unix": self = .unix
        case "unix_ms": self = .unixMilliseconds
        default: self = .pattern(text)
        }
    }

    /// A formatter for ``pattern(_:)``, made once per page (formatters are not `Sendable`).
    func makeFormatter() -> DateFormatter? {
        guard case .pattern(let pattern) = self else { return nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = pattern
        return formatter
    }

    /// The date `value` denotes, or a ``PageDecodeError`` at `path`.
    func date(_ value: JSONValue, at path: String, field: String, formatter: DateFormatter?) throws -> Date? {
        func failure(_ expected: String) -> PageDecodeError {
            let found = value.scalarText.map { "'\($0.prefix(40))'" } ?? value.kindDescription
            return PageDecodeError(path: path, "expected \(expected) for fields.\(field), found \(found)")
        }
        switch self {
        case .iso8601:
            guard case .string(let text) = value else { throw failure("an ISO 8601 timestamp") }
            guard let text = ItemText.nonEmpty(text) else { return nil }
            guard let date = ISO8601.date(from: text) else { throw failure("an ISO 8601 timestamp") }
            return date
        case .unix, .unixMilliseconds:
            if case .string(let text) = value, ItemText.nonEmpty(text) == nil { return nil }
            guard let seconds = value.doubleValue, seconds.isFinite else {
                throw failure(self == .unix ? "seconds since 1970" : "milliseconds since 1970")
            }
            return Date(timeIntervalSince1970: self == .unix ? seconds : seconds / 1000)
        case .pattern(let pattern):
            guard let text = value.scalarText else { throw failure("a date like '\(pattern)'") }
            guard let text = ItemText.nonEmpty(text) else { return nil }
            guard let date = formatter?.date(from: text) else { throw failure("a date like '\(pattern)'") }
            return date
        }
    }
}

/// The `fields:` mapping of a declarative source: how each item becomes a ``FeedItem``.
public struct ItemMapping: Sendable {
    /// The keys `fields:` accepts.
    public static let keys = [
        "id", "title", "url", "summary", "author", "author_url", "avatar", "image", "published", "updated",
        "date_format",
    ]

    /// The item's identifier (required).
    public var id: FieldExpression
    /// Its headline (required).
    public var title: FieldExpression
    /// Its web page.
    public var url: FieldExpression?
    /// A one-line description.
    public var summary: FieldExpression?
    /// The author's name.
    public var author: FieldExpression?
    /// The author's web page.
    public var authorURL: FieldExpression?
    /// The author's avatar.
    public var avatar: FieldExpression?
    /// An image representing the item.
    public var image: FieldExpression?
    /// When the item was created.
    public var published: FieldExpression?
    /// When the item last changed.
    public var updated: FieldExpression?
    /// How the two dates are written.
    public var dateFormat: DateFormat

    /// A mapping: `id` and `title` are required, every other field is left empty without one.
    public init(
        id: FieldExpression, title: FieldExpression, url: FieldExpression? = nil, summary: FieldExpression? = nil,
        author: FieldExpression? = nil, authorURL: FieldExpression? = nil, avatar: FieldExpression? = nil,
        image: FieldExpression? = nil, published: FieldExpression? = nil, updated: FieldExpression? = nil,
        dateFormat: DateFormat = .iso8601
    ) {
        self.id = id
        self.title = title
        self.url = url
        self.summary = summary
        self.author = author
        self.authorURL = authorURL
        self.avatar = avatar
        self.image = image
        self.published = published
        self.updated = updated
        self.dateFormat = dateFormat
    }

    /// Maps one item.
    ///
    /// - Parameters:
    ///   - item: the item's JSON.
    ///   - base: its path in the page (`$[3]`), for errors.
    ///   - idPrefix: prepended to the id (`feed:`), so ids of different declared APIs never meet.
    ///   - pageURL: the page's URL; link fields starting with `/` are resolved against it.
    ///   - formatter: the page's formatter for a ``DateFormat/pattern(_:)`` format.
    public func item(
        _ item: JSONValue, raw: Data, base: String, idPrefix: String, pageURL: URL, formatter: DateFormatter?
    ) throws -> FeedItem {
        guard let id = try id.text(in: item, base: base) else {
            throw PageDecodeError(path: path(of: self.id, base: base), "the item has no id (fields.id is absent, null or empty)")
        }
        guard let title = try title.text(in: item, base: base) else {
            throw PageDecodeError(
                path: path(of: self.title, base: base), "the item has no title (fields.title is absent, null or empty)")
        }
        func link(_ expression: FieldExpression?) throws -> String? {
            guard let text = try expression?.text(in: item, base: base) else { return nil }
            guard text.hasPrefix("/") else { return text }
            return URL(string: text, relativeTo: pageURL)?.absoluteURL.absoluteString ?? text
        }
        func date(_ expression: FieldExpression?, _ field: String) throws -> Date? {
            guard let (value, path) = try expression?.value(in: item, base: base) else { return nil }
            return try dateFormat.date(value, at: path, field: field, formatter: formatter)
        }
        let authorName = try author?.text(in: item, base: base)
        let author = try authorName.map {
            FeedAuthor(name: $0, url: try link(authorURL), avatarURL: try link(avatar))
        }
        return FeedItem(
            id: idPrefix + id,
            title: title,
            summary: try summary?.text(in: item, base: base),
            url: try link(url),
            author: author,
            imageURL: try link(image),
            published: try date(published, "published"),
            updated: try date(updated, "updated"),
            raw: raw)
    }

    private func path(of expression: FieldExpression, base: String) -> String {
        if case .path(let path) = expression { return JSONPath.render(path.components, prefix: base) }
        return base
    }
}
