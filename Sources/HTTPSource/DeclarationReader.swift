import FeedCore
import Foundation

/// Reads the keys of an `http` feed, throwing ``ConfigError``s located at the offending YAML,
/// down to the column of a bad template expression or JSON path step.
struct DeclarationReader {
    /// Keys of `pagination` per style (besides `style`).
    static let styleKeys: [String: [String]] = [
        "link": ["size_param"],
        "page": ["page_param", "size_param", "first_page", "total_pages", "total_items", "current_page"],
        "offset": ["offset_param", "limit_param", "total"],
        "cursor": ["cursor_param", "next", "size_param"],
    ]

    let parameters: FeedParameters
    let typeName: String

    private var feedName: String { parameters.feedName }

    // MARK: - Nodes and locations

    /// The node of a required key.
    func requiredNode(_ key: String) throws -> ConfigNode {
        guard let node = parameters.value(key) else {
            throw ConfigError(
                "feed '\(feedName)' (\(typeName)) is missing required parameter '\(key)'", at: parameters.node.location)
        }
        return node
    }

    /// The text of a scalar node, or an error naming `key`.
    func text(_ node: ConfigNode, key: String) throws -> String {
        guard let text = node.scalar, !node.isNull else {
            throw ConfigError("'\(key)' must be a string, found \(node.kindDescription)", at: node.location)
        }
        return text
    }

    /// Where character `offset` of a scalar's text is in the file, when the scalar is written on
    /// one line as is (plain, or quoted without escapes); else the scalar's own location.
    func location(in node: ConfigNode, offset: Int) -> SourceLocation {
        let start = node.location
        guard case .scalar(let text, let plain) = node.value, let line = start.file.line(start.line) else { return start }
        let characters = Array(line)
        var contentColumn = start.column  // 1-based
        if !plain {
            guard start.column - 1 < characters.count, characters[start.column - 1] == "\"" || characters[start.column - 1] == "'"
            else { return start }
            contentColumn += 1
        }
        let from = contentColumn - 1
        guard from >= 0, from + text.count <= characters.count,
            String(characters[from..<(from + text.count)]) == text, offset >= 0, offset <= text.count
        else { return start }
        return SourceLocation(file: start.file, line: start.line, column: contentColumn + offset)
    }

    // MARK: - The URL template

    /// The parsed `url` template.
    func template(_ node: ConfigNode) throws -> URITemplate {
        let text = try text(node, key: "url")
        do {
            return try URITemplate(text)
        } catch {
            throw ConfigError("invalid URI template in 'url': \(error.message)", at: location(in: node, offset: error.offset))
        }
    }

    /// The template variables the feed defines: its own keys (and inherited defaults) other than
    /// the source's own and `filters`, with `base_url` and `per_page` from the feed's context. Keys
    /// present but null (an unset `${VAR}`) are defined and undefined-valued: they expand to nothing.
    func variables(feed: FeedContext) throws -> [String: URITemplate.Value] {
        var values: [String: URITemplate.Value] = [:]
        for (name, node) in variableNodes() where !node.isNull {
            values[name] = try value(node, name: name)
        }
        var base = feed.baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        values["base_url"] = .string(base)
        values["per_page"] = .string(String(feed.pageSize))
        return values
    }

    /// Names of every variable the feed declares, null or not.
    func declaredVariables() -> Set<String> {
        Set(variableNodes().map(\.0)).union(["base_url", "per_page"])
    }

    private func variableNodes() -> [(String, ConfigNode)] {
        var out: [(String, ConfigNode)] = []
        var seen = Set<String>()
        let mappings = [parameters.node.entries ?? [], parameters.defaults?.entries ?? []]
        for entries in mappings {
            for (key, value) in entries {
                // `filters` are the feed's filter rules (read by the configuration loader), never sent.
                guard let name = key.scalar, name != "source", name != "filters", !HTTPSource.ownKeys.contains(name),
                    seen.insert(name).inserted
                else { continue }
                out.append((name, value))
            }
        }
        return out
    }

    private func value(_ node: ConfigNode, name: String) throws -> URITemplate.Value {
        func scalar(_ item: ConfigNode) throws -> String {
            guard let text = item.scalar else {
                throw ConfigError(
                    "template variable '\(name)' must be a scalar, a list of scalars or a mapping of scalars, "
                        + "found \(item.kindDescription) inside it",
                    at: item.location)
            }
            return text
        }
        switch node.value {
        case .scalar(let text, _):
            return .string(text)
        case .sequence(let items):
            return .list(try items.filter { !$0.isNull }.map(scalar))
        case .mapping(let entries):
            return .associative(
                try entries.filter { !$0.value.isNull }.map { URITemplate.Pair(try scalar($0.key), try scalar($0.value)) })
        }
    }

    /// Every variable of the template must be defined by the feed.
    func checkTemplateVariables(_ template: URITemplate, urlNode: ConfigNode) throws {
        let declared = declaredVariables()
        for reference in template.variables where !declared.contains(reference.name) {
            var notes = Suggestion.didYouMean(reference.name, in: declared.sorted())
            notes.append("note: template variables are the feed's keys; add '\(reference.name): …' to the feed")
            throw ConfigError(
                "template variable '\(reference.name)' is not defined by feed '\(feedName)'",
                at: location(in: urlNode, offset: reference.offset), notes: notes)
        }
    }

    /// Every key the source does not know by name must be a variable of the template.
    func checkAdditionalKeys(template: URITemplate, known: [String]) throws {
        let used = Set(template.variableNames)
        for (key, _) in parameters.node.entries ?? [] {
            guard let name = key.scalar, !known.contains(name), !used.contains(name) else { continue }
            let candidates = Array(Set(known + template.variableNames)).sorted()
            var notes = Suggestion.didYouMean(name, in: candidates)
            notes.append("note: a key that is not a parameter of \(typeName) must be a variable of the 'url' template")
            notes.append("parameters of \(typeName): \(known.sorted().joined(separator: ", "))")
            throw ConfigError(
                "unknown parameter '\(name)' for source type '\(typeName)'", at: key.location, notes: notes)
        }
    }

    // MARK: - JSON paths

    /// A JSON path from a scalar node; errors point at the offending character.
    func path(_ node: ConfigNode, key: String) throws -> JSONPath {
        let text = try text(node, key: key)
        do {
            return try JSONPath(text)
        } catch {
            throw ConfigError(
                "invalid JSON path '\(text)' in '\(key)': \(error.message)",
                at: location(in: node, offset: error.offset ?? 0))
        }
    }

    // MARK: - Pagination

    /// The `pagination` mapping (absent: `link`).
    func paging(sizeInTemplate: Bool) throws -> Paging {
        guard let node = try parameters.mapping("pagination") else {
            return Paging(strategy: LinkHeaderPagination(pageSizeParameter: nil))
        }
        let sub = FeedParameters(node: node, defaults: nil, feedName: feedName, sourceType: typeName)
        guard let styleNode = sub.value("style") else {
            throw ConfigError(
                "'pagination' is missing required key 'style' (\(Paging.styles.joined(separator: ", ")))",
                at: node.location)
        }
        let style = try text(styleNode, key: "pagination.style")
        guard let keys = Self.styleKeys[style] else {
            var notes = Suggestion.didYouMean(style, in: Paging.styles)
            notes.append("pagination styles: \(Paging.styles.joined(separator: ", "))")
            throw ConfigError("unknown pagination style '\(style)'", at: styleNode.location, notes: notes)
        }
        for (key, _) in node.entries ?? [] {
            guard let name = key.scalar, name != "style", !keys.contains(name) else { continue }
            var notes = Suggestion.didYouMean(name, in: keys)
            let owners = Self.styleKeys.filter { $0.value.contains(name) }.keys.sorted()
            if !owners.isEmpty {
                notes.append("note: '\(name)' belongs to style \(owners.joined(separator: ", "))")
            }
            notes.append("keys of style \(style): style, \(keys.joined(separator: ", "))")
            throw ConfigError(
                "unknown key '\(name)' in 'pagination' for style '\(style)'", at: key.location, notes: notes)
        }
        func name(_ key: String) throws -> String? {
            guard let value = sub.value(key) else { return nil }
            let text = try text(value, key: "pagination.\(key)")
            guard !text.isEmpty else { throw ConfigError("'pagination.\(key)' must not be empty", at: value.location) }
            return text
        }
        func path(_ key: String) throws -> JSONPath? {
            try sub.value(key).map { try self.path($0, key: "pagination.\(key)") }
        }
        switch style {
        case "page":
            let sizeParameter = try name("size_param")
            let strategy = PageNumberPagination(
                pageParameter: try name("page_param") ?? "page", pageSizeParameter: sizeParameter,
                firstPageNumber: try sub.integer("first_page", in: 0...1_000_000) ?? 1,
                knowsPageSize: sizeParameter != nil || sizeInTemplate)
            return Paging(
                strategy: strategy, totalPages: try path("total_pages"), totalItems: try path("total_items"),
                currentPage: try path("current_page"))
        case "offset":
            let strategy = OffsetPagination(
                offsetParameter: try name("offset_param") ?? "offset", limitParameter: try name("limit_param"))
            return Paging(strategy: strategy, totalItems: try path("total"))
        case "cursor":
            guard let next = try path("next") else {
                throw ConfigError(
                    "'pagination' of style 'cursor' is missing required key 'next' (the JSON path of the next page's token)",
                    at: node.location)
            }
            let strategy = CursorPagination(
                cursorParameter: try name("cursor_param") ?? "cursor", pageSizeParameter: try name("size_param"))
            return Paging(strategy: strategy, next: next)
        default:
            return Paging(strategy: LinkHeaderPagination(pageSizeParameter: try name("size_param")))
        }
    }

    // MARK: - Fields

    /// The `fields` mapping.
    func mapping() throws -> ItemMapping {
        let node = try requiredNode("fields")
        guard let entries = try parameters.mapping("fields")?.entries else {
            throw ConfigError("'fields' must be a mapping, found \(node.kindDescription)", at: node.location)
        }
        for (key, _) in entries {
            let name = key.scalar ?? ""
            guard !ItemMapping.keys.contains(name) else { continue }
            var notes = Suggestion.didYouMean(name, in: ItemMapping.keys)
            notes.append("keys of 'fields': \(ItemMapping.keys.joined(separator: ", "))")
            throw ConfigError("unknown key '\(name)' in 'fields'", at: key.location, notes: notes)
        }
        let sub = FeedParameters(node: node, defaults: nil, feedName: feedName, sourceType: typeName)
        func expression(_ key: String) throws -> FieldExpression? {
            guard let value = sub.value(key) else { return nil }
            let text = try text(value, key: "fields.\(key)")
            if text.hasPrefix("$") { return .path(try path(value, key: "fields.\(key)")) }
            do {
                return try FieldExpression(text)
            } catch {
                throw ConfigError(
                    "invalid text template in 'fields.\(key)': \(error.message)",
                    at: location(in: value, offset: error.offset))
            }
        }
        func required(_ key: String) throws -> FieldExpression {
            guard let found = try expression(key) else {
                throw ConfigError(
                    "'fields' is missing required key '\(key)' (a JSON path in the item, e.g. \(key): \"$.\(key == "title" ? "name" : key)\")",
                    at: node.location)
            }
            return found
        }
        var dateFormat = DateFormat.iso8601
        if let value = sub.value("date_format") {
            let text = try text(value, key: "fields.date_format")
            guard !text.isEmpty else { throw ConfigError("'fields.date_format' must not be empty", at: value.location) }
            dateFormat = DateFormat(text)
        }
        return ItemMapping(
            id: try required("id"), title: try required("title"), url: try expression("url"),
            summary: try expression("summary"), author: try expression("author"), authorURL: try expression("author_url"),
            avatar: try expression("avatar"), image: try expression("image"), published: try expression("published"),
            updated: try expression("updated"), dateFormat: dateFormat)
    }

    // MARK: - Order and headers

    /// `order`: `newest_first` or `unordered` (default).
    func ordering() throws -> ItemOrdering {
        guard let value = parameters.value("order") else { return .unordered }
        let text = try text(value, key: "order")
        switch text {
        case "newest_first": return .newestFirst
        case "unordered": return .unordered
        default:
            let choices = ["newest_first", "unordered"]
            throw ConfigError(
                "'order' must be newest_first or unordered, found '\(text)'", at: value.location,
                notes: Suggestion.didYouMean(text, in: choices))
        }
    }

    /// `Accept: application/json` plus `headers`, and the credential headers (`token`, and any
    /// header whose name suggests a credential).
    func headers() throws -> (request: HTTPHeaders, credentials: HTTPHeaders) {
        var request: HTTPHeaders = ["Accept": "application/json"]
        var credentials = HTTPHeaders()
        // Only the feed's own token: one in `defaults:` is meant for other APIs (a GitHub token
        // must not reach whatever host a declared feed names).
        let own = FeedParameters(node: parameters.node, defaults: nil, feedName: feedName, sourceType: typeName)
        if let token = try own.secret("token") { credentials.set("Authorization", "Bearer \(token.value)") }
        guard let node = try parameters.mapping("headers") else { return (request, credentials) }
        for (key, value) in node.entries ?? [] {
            let name = try text(key, key: "headers")
            let tokenCharacters = CharacterSet(charactersIn: "!#$%&'*+-.^_`|~").union(
                CharacterSet(charactersIn: "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"))
            guard !name.isEmpty, name.unicodeScalars.allSatisfy(tokenCharacters.contains) else {
                throw ConfigError("invalid header name '\(name)' in 'headers'", at: key.location)
            }
            if value.isNull { continue }
            let text = try text(value, key: "headers.\(name)")
            guard !text.contains(where: \.isNewline) else {
                throw ConfigError("header '\(name)' must be a single line", at: value.location)
            }
            if Self.isCredential(name) {
                credentials.set(name, text)
            } else {
                request.set(name, text)
            }
        }
        return (request, credentials)
    }

    /// Whether a header name suggests a credential (sent only to the feed's origin, never logged).
    static func isCredential(_ name: String) -> Bool {
        let lower = name.lowercased()
        return lower == "authorization" || lower == "cookie" || lower == "proxy-authorization" || lower.contains("key")
            || lower.contains("token") || lower.contains("secret")
    }
}
