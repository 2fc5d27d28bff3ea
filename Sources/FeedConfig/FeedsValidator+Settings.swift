import FeedCore
import Foundation

/// The `defaults` and `settings` blocks of feeds.yaml.
extension FeedsValidator {
    // MARK: - Defaults

    /// The `defaults` mapping without its invalid keys (each recorded in ``errors``).
    mutating func validateDefaults(_ node: ConfigNode?) -> ConfigNode? {
        guard let node, !node.isNull else { return nil }
        guard let entries = node.entries else {
            errors.append(
                ConfigError(
                    "'defaults' must be a mapping of feed parameters, found \(node.kindDescription)", at: node.location))
            return nil
        }
        let all = FeedContext.commonParameters + knownTypes.flatMap { sources[$0]?.parameters ?? [] }
        var kinds: [String: Set<ParameterSpec.Kind>] = [:]
        var specs: [String: ParameterSpec] = [:]
        for spec in all where spec.name != "name" && spec.name != "source" && spec.name != "filters" {
            kinds[spec.name, default: []].insert(spec.kind)
            specs[spec.name] = specs[spec.name] ?? spec
        }
        let fileKeys = SecretFiles.fileKeys(for: all)
        let allowed = (Array(kinds.keys) + fileKeys.keys).sorted()
        let parameters = FeedParameters(node: node, defaults: nil, feedName: "defaults", sourceType: "defaults")
        let largestPage = knownTypes.compactMap { sources[$0]?.maxPageSize }.max() ?? Int.max
        var valid: [(key: ConfigNode, value: ConfigNode)] = []
        var found: [ConfigError] = []
        for entry in entries {
            let key = entry.key
            let name = key.scalar ?? ""
            let checked: Bool? = Self.collecting(&found) {
                if name == "name" || name == "source" {
                    throw ConfigError("'\(name)' cannot be set in 'defaults': each feed gives its own", at: key.location)
                }
                if name == "filters" {
                    throw ConfigError(
                        "'filters' cannot be set in 'defaults': the rules of every feed go under 'settings: filters:'",
                        at: key.location)
                }
                if fileKeys[name] != nil { return true }
                guard let spec = specs[name] else {
                    throw unknownKey(
                        key, "unknown key '\(name)' in 'defaults'", candidates: allowed, listing: "allowed keys in defaults")
                }
                // A key shared by several source types is checked per feed when kinds differ.
                if kinds[name]?.count == 1 {
                    try check(spec, in: parameters, maxPageSize: largestPage)
                }
                return true
            }
            if checked != nil { valid.append(entry) }
        }
        let kept = ConfigNode(.mapping(valid), at: node.location, unsetVariables: node.unsetVariables)
        let resolved = Self.collecting(&found) { try secretFiles.resolve(kept, fileKeys: fileKeys) }
        errors += found
        return resolved
    }

    // MARK: - Settings

    /// The `settings` block; each invalid setting is recorded in ``errors`` and keeps its default.
    mutating func validateSettings(_ node: ConfigNode?) -> FeedsDocument.Settings {
        var settings = FeedsDocument.Settings()
        guard let node, !node.isNull else { return settings }
        guard let entries = node.entries else {
            errors.append(ConfigError("'settings' must be a mapping, found \(node.kindDescription)", at: node.location))
            return settings
        }
        for (key, _) in entries where !FeedsDocument.Settings.keys.contains(key.scalar ?? "") {
            errors.append(
                unknownKey(
                    key, "unknown setting '\(key.scalar ?? "")'", candidates: FeedsDocument.Settings.keys,
                    listing: "known settings"))
        }
        var found: [ConfigError] = []
        defer { errors += found }
        // `store_password_file: PATH` becomes `store_password: <the file's text>` (token_file's rules).
        let resolved =
            Self.collecting(&found) {
                try secretFiles.resolve(node, fileKeys: ["store_password_file": "store_password"])
            } ?? node
        let parameters = FeedParameters(node: resolved, defaults: nil, feedName: "settings", sourceType: "settings")
        let range = FeedsDocument.Settings.concurrencyRange
        func attempt<T>(_ body: () throws -> T?) -> T? { Self.collecting(&found, body) }
        if let value = attempt({ try parameters.integer("max_connections_per_host", in: range) }) {
            settings.maxConnectionsPerHost = value
        }
        if let value = attempt({ try parameters.integer("page_concurrency", in: range) }) {
            settings.pageConcurrency = value
        }
        if let value = attempt({ try parameters.integer("retries", in: FeedsDocument.Settings.retriesRange) }) {
            settings.retries = value
        }
        if let value = attempt({ try seconds("retry_max_wait", in: parameters) }) { settings.retryMaxWait = value }
        if let value = attempt({ try seconds("rate_limit_wait", in: parameters) }) { settings.rateLimitWait = value }
        if let value = attempt({ try seconds("connect_timeout", in: parameters) }) { settings.connectTimeout = value }
        if let value = attempt({ try parameters.boolean("keep_raw") }) { settings.keepRaw = value }
        if let value = attempt({ try seconds("timeout", in: parameters) }) { settings.timeout = value }
        if let value = attempt({ try seconds("first_byte_timeout", in: parameters) }) {
            settings.firstByteTimeout = value
        }
        if let value = attempt({ try Self.userAgent(in: parameters) }) { settings.userAgent = value }
        if let value = attempt({ try parameters.value("interval").map { try PullInterval.seconds($0) } }) {
            settings.interval = value
        }
        if let value = attempt({ try parameters.value("lease_timeout").map { try LeaseTimeout.seconds($0) } }) {
            settings.leaseTimeout = value
        }
        if let value = attempt({ try parameters.value("min_refresh").map { try MinRefresh.seconds($0) } }) {
            settings.minRefresh = value
        }
        if let value = attempt({ try Self.redactParams(in: parameters) }) { settings.redactParams = value }
        if let value = attempt({ try Self.store(in: parameters, paths: secretFiles) }) { settings.store = value }
        settings.storePassword = try? parameters.string("store_password")
        if let value = attempt({ try Self.storeTLS(in: parameters, paths: secretFiles) }) { settings.storeTLS = value }
        for (key, value) in entries where value.isNull && !value.unsetVariables.isEmpty {
            warnings.append(
                PendingWarning(
                    location: value.location,
                    text: "\(Self.unsetPhrase(value.unsetVariables)); setting '\(key.scalar ?? "")' keeps its default"))
        }
        return settings
    }

    /// The `store` setting, when given: a `postgres://`/`postgresql://` URL as written, or a SQLite
    /// path resolved against the folder of feeds.yaml (`~/` against `$HOME`).
    static func store(in parameters: FeedParameters, paths: SecretFiles) throws -> String? {
        guard let value = try parameters.string("store"), let valueNode = parameters.value("store") else { return nil }
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, !trimmed.contains(where: \.isNewline) else {
            throw ConfigError("'store' must be a SQLite file or a postgres:// URL on one line", at: valueNode.location)
        }
        let lowered = trimmed.lowercased()
        if lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://") { return trimmed }
        return paths.resolved(trimmed)
    }

    /// The `redact_params` setting, when given: a list of query parameter names (letters, digits,
    /// `_`, `-`, `.`).
    static func redactParams(in parameters: FeedParameters) throws -> [String]? {
        guard let entries = try parameters.list("redact_params") else { return nil }
        return try entries.map { entry in
            let name = entry.text.trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty,
                name.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) || "_-.[]".unicodeScalars.contains($0) })
            else {
                throw ConfigError(
                    "'redact_params' lists query parameter names (letters, digits, _ - . [ ]), found '\(entry.text)'",
                    at: entry.node.location)
            }
            return name
        }
    }

    /// The `user_agent` setting, when given: one non-empty line.
    static func userAgent(in parameters: FeedParameters) throws -> String? {
        guard let value = try parameters.string("user_agent"), let valueNode = parameters.value("user_agent") else {
            return nil
        }
        guard !value.isEmpty else { throw ConfigError("'user_agent' must not be empty", at: valueNode.location) }
        guard !value.contains(where: \.isNewline) else {
            throw ConfigError("'user_agent' must be a single line", at: valueNode.location)
        }
        return value
    }

    func seconds(_ key: String, in parameters: FeedParameters) throws -> Double? {
        guard let node = parameters.value(key) else { return nil }
        guard let text = node.scalar else {
            throw ConfigError("'\(key)' must be a number of seconds, found \(node.kindDescription)", at: node.location)
        }
        let limit = FeedsDocument.Settings.maximumTimeout
        guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite, value > 0,
            value <= limit
        else {
            throw ConfigError(
                "'\(key)' must be a number of seconds greater than 0 and at most \(Int(limit)), found '\(text)'",
                at: node.location)
        }
        return value
    }
}
