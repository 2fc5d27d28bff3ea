import FeedCore
import FeedSearch
import Foundation

/// The query language in feeds.yaml: the top-level `views:` list and the `filters:` lists (under
/// `settings:` and per feed). Every query is parsed here, so `validate` checks them all.
extension FeedsValidator {
    /// The keys of one view.
    static let viewKeys = ["name", "query"]
    /// The keys of one filter rule.
    static let ruleKeys = ["drop", "keep", "tag", "when"]

    // MARK: - Views

    /// The `views:` list; each invalid view is recorded in ``errors`` and left out.
    mutating func validateViews(_ node: ConfigNode?) -> [SavedView] {
        guard let node, !node.isNull else { return [] }
        guard case .sequence(let items) = node.value else {
            errors.append(
                ConfigError(
                    "'views' must be a list of {name, query}, found \(node.kindDescription)", at: node.location,
                    notes: ["e.g. views: [{name: rust, query: \"rust -beta\"}]"]))
            return []
        }
        var views: [SavedView] = []
        var names: [String: SourceLocation] = [:]
        var found: [ConfigError] = []
        for item in items {
            if let view = Self.collecting(&found, { try view(item, names: &names) }) { views.append(view) }
        }
        errors += found
        return views
    }

    /// One `{name, query}` of `views:`.
    func view(_ item: ConfigNode, names: inout [String: SourceLocation]) throws -> SavedView {
        guard let entries = item.entries else {
            throw ConfigError("each view must be a mapping with 'name' and 'query', found \(item.kindDescription)", at: item.location)
        }
        for (key, _) in entries where !Self.viewKeys.contains(key.scalar ?? "") {
            throw unknownKey(key, "unknown key '\(key.scalar ?? "")' in a view", candidates: Self.viewKeys, listing: "keys of a view")
        }
        guard let nameNode = item["name"], let name = nameNode.scalar, !nameNode.isNull else {
            throw ConfigError("a view is missing 'name'", at: item["name"]?.location ?? item.location)
        }
        guard Self.isViewName(name) else {
            throw ConfigError(
                "invalid view name '\(name)': use letters, digits, '.', '_' and '-' (it is part of /views/NAME.atom)",
                at: nameNode.location)
        }
        if let first = names[name] {
            throw ConfigError("duplicate view name '\(name)'", at: nameNode.location, notes: ["note: first declared at \(first)"])
        }
        names[name] = nameNode.location
        guard let queryNode = item["query"] else {
            throw ConfigError("view '\(name)' is missing 'query'", at: item.location, notes: ["e.g. query: \"swift -beta\""])
        }
        let (query, text) = try QueryScalar.parse(queryNode, key: "query", context: "view '\(name)'")
        return SavedView(name: name, query: query, text: text, location: Self.itemLocation(item))
    }

    /// Letters, digits, `.`, `_` and `-` (ASCII): a view name as it appears in a URL.
    static func isViewName(_ name: String) -> Bool {
        !name.isEmpty
            && name.unicodeScalars.allSatisfy { scalar in
                switch scalar {
                case "a"..."z", "A"..."Z", "0"..."9", ".", "_", "-": true
                default: false
                }
            }
    }

    // MARK: - Filter rules

    /// The rules of a `filters:` list (`owner`: `settings` or `feed 'NAME'`, for messages).
    ///
    /// - Throws: ``ConfigError`` for the first invalid rule (a feed's rules are all or nothing, as
    ///   its other keys are); see ``validateGlobalFilters(_:)`` for the settings' rules.
    func filterRules(_ node: ConfigNode, owner: String) throws -> [FilterRule] {
        guard !node.isNull else { return [] }
        guard case .sequence(let items) = node.value else {
            throw ConfigError(
                "'filters' must be a list of rules, found \(node.kindDescription)", at: node.location,
                notes: ["e.g. filters: [{drop: \"beta OR alpha\"}, {keep: \"swift\"}, {tag: urgent, when: \"security\"}]"])
        }
        return try items.map { try filterRule($0, owner: owner) }
    }

    /// The `settings: filters:` rules; each invalid rule is recorded in ``errors`` and left out.
    mutating func validateGlobalFilters(_ node: ConfigNode?) -> [FilterRule] {
        guard let node else { return [] }
        var rules: [FilterRule] = []
        var found: [ConfigError] = []
        guard case .sequence(let items) = node.value else {
            rules = Self.collecting(&found) { try filterRules(node, owner: "settings") } ?? []
            errors += found
            return rules
        }
        for item in items {
            if let rule = Self.collecting(&found, { try filterRule(item, owner: "settings") }) { rules.append(rule) }
        }
        errors += found
        return rules
    }

    /// One rule: `{drop: Q}`, `{keep: Q}` or `{tag: LABEL, when: Q}`.
    func filterRule(_ item: ConfigNode, owner: String) throws -> FilterRule {
        let shapes = "a rule is {drop: QUERY}, {keep: QUERY} or {tag: LABEL, when: QUERY}"
        guard let entries = item.entries else {
            throw ConfigError("\(shapes), found \(item.kindDescription)", at: item.location)
        }
        for (key, _) in entries where !Self.ruleKeys.contains(key.scalar ?? "") {
            throw unknownKey(
                key, "unknown key '\(key.scalar ?? "")' in a filter rule", candidates: Self.ruleKeys, listing: "keys of a rule")
        }
        let actions = entries.filter { ["drop", "keep", "tag"].contains($0.key.scalar ?? "") }
        guard actions.count == 1, let action = actions.first, let actionName = action.key.scalar else {
            let at = actions.dropFirst().first?.key.location ?? item.location
            throw ConfigError(
                actions.isEmpty ? "a filter rule needs 'drop', 'keep' or 'tag'" : "a filter rule does one thing: \(shapes)",
                at: at, notes: ["note: \(shapes)"])
        }
        let context = "a '\(actionName)' rule of \(owner)"
        if actionName == "tag" {
            let label = try tagLabel(action.value)
            guard let when = item["when"] else {
                throw ConfigError(
                    "a 'tag' rule needs 'when: QUERY' (the items to label)", at: action.key.location,
                    notes: ["e.g. {tag: \(label), when: \"security OR cve\"}"])
            }
            let (query, text) = try QueryScalar.parse(when, key: "when", context: "the tag rule '\(label)' of \(owner)")
            return FilterRule(.tag(label), query: query, text: text)
        }
        if let when = entries.first(where: { $0.key.scalar == "when" }) {
            throw ConfigError(
                "'when' belongs to a 'tag' rule; a '\(actionName)' rule's query is its value", at: when.key.location,
                notes: ["e.g. {\(actionName): \"beta\"}"])
        }
        let (query, text) = try QueryScalar.parse(action.value, key: actionName, context: context)
        return FilterRule(actionName == "drop" ? .drop : .keep, query: query, text: text)
    }

    /// A tag rule's label: one line of letters, digits, spaces, `.`, `_`, `-`, `:` or `/`, at
    /// most 64 characters (it becomes an Atom category and a JSON Feed tag).
    func tagLabel(_ node: ConfigNode) throws -> String {
        guard let label = node.scalar, !node.isNull else {
            throw ConfigError("'tag' must be a label, found \(node.kindDescription)", at: node.location)
        }
        let trimmed = label.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.count <= 64,
            trimmed.allSatisfy({ $0.isLetter || $0.isNumber || " ._-:/".contains($0) })
        else {
            throw ConfigError(
                "invalid tag label '\(label)': up to 64 letters, digits, spaces, '.', '_', '-', ':' or '/'",
                at: node.location)
        }
        return trimmed
    }

    // MARK: - Names in queries

    /// Warns about a `feed:NAME` that names no declared feed and a `source:TYPE` that names no
    /// source type, in every query that parsed, and about a feed's own rule that names another
    /// feed (a feed's rules see only its own copy of an item, so it can never match).
    mutating func noteQueryNames(_ root: ConfigNode, feeds: [FeedDeclaration]) {
        let names = feeds.map(\.name)
        var queries: [(node: ConfigNode, owner: String?)] = []
        if case .sequence(let items) = root["views"]?.value {
            queries += items.compactMap { $0["query"] }.map { ($0, nil) }
        }
        func rules(_ node: ConfigNode?, owner: String?) {
            guard case .sequence(let items) = node?.value else { return }
            for item in items {
                for key in ["drop", "keep", "when"] { if let query = item[key] { queries.append((query, owner)) } }
            }
        }
        rules(root["settings"]?["filters"], owner: nil)
        for feed in feeds { rules(feed.node["filters"], owner: feed.name) }
        for (node, owner) in queries {
            guard let text = node.scalar, let query = try? SearchQuery(parsing: text) else { continue }
            for name in Self.names(in: query, field: "feed") {
                if let owner, name != owner {
                    warnings.append(
                        PendingWarning(
                            location: node.location,
                            text: "'feed:\(name)' in a rule of feed '\(owner)' never matches: a feed's rules see only its own copy of an item"))
                } else if !names.contains(name) {
                    let hint = Suggestion.closest(to: name, in: names).map { " (did you mean '\($0)'?)" } ?? ""
                    warnings.append(
                        PendingWarning(location: node.location, text: "'feed:\(name)' names no declared feed\(hint); it matches nothing"))
                }
            }
            for type in Self.names(in: query, field: "source") where !knownTypes.contains(type) {
                let hint = Suggestion.closest(to: type, in: knownTypes).map { " (did you mean '\($0)'?)" } ?? ""
                warnings.append(
                    PendingWarning(location: node.location, text: "'source:\(type)' names no source type\(hint); it matches nothing"))
            }
        }
    }

    /// The values of `feed:` (`field` "feed") or `source:` terms in `query`, in order.
    static func names(in query: SearchQuery, field: String) -> [String] {
        switch query {
        case .all(let parts), .any(let parts): parts.flatMap { names(in: $0, field: field) }
        case .not(let part): names(in: part, field: field)
        case .feed(let name): field == "feed" ? [name] : []
        case .source(let type): field == "source" ? [type] : []
        case .text, .date: []
        }
    }
}
