import FeedConfig
public import FeedCore
public import FeedStore
public import Foundation

/// What `feedagg show` reads.
public struct ShowSettings: Sendable {
    /// feeds.yaml path (declares which feeds are shown, in which order).
    public var configPath: String
    /// The store.
    public var store: StoreLocation = .standard
    /// Only these feeds (all declared feeds when empty).
    public var feeds: [String] = []
    /// Only feeds of these source types (all when empty).
    public var sources: [String] = []
    /// Page number (1-based), used when ``after`` is `nil`.
    public var page: Int = 1
    /// Entries per page.
    public var perPage: Int = 20
    /// A `next_cursor` from an earlier page: show the entries after it.
    public var after: String?

    /// Creates settings.
    public init(configPath: String) {
        self.configPath = configPath
    }
}

/// One line of `feedagg feeds`.
public struct FeedStatus: Sendable {
    /// The feed's name.
    public var name: String
    /// Its source type (declared, else as last stored).
    public var source: String
    /// Whether feeds.yaml still declares it (`false`: removed; `feedagg prune` deletes it).
    public var declared: Bool
    /// What the store holds, `nil` when it was never pulled.
    public var stored: FeedSummary?
}

extension Aggregator {
    /// The declared feeds (name, source type) in declaration order, without building sources (so a
    /// feed whose token variable is unset can still be read offline).
    public func declaredFeeds(configPath: String) throws -> [(name: String, source: String)] {
        let document = try FeedsLoader.load(path: configPath, sources: registry.descriptors, environment: environment)
        return document.feeds.map { ($0.name, $0.sourceType) }
    }

    /// Opens an existing store for reading commands; a missing file is a clear error, not a new store.
    func openExistingStore(_ location: StoreLocation) throws -> FeedStore {
        let (path, _) = try location.resolve(environment: environment)
        guard FileManager.default.fileExists(atPath: path) else {
            throw StoreError(
                kind: .cannotOpen, path: path, operation: "open",
                detail: "no store there yet: run `feedagg pull` first (or pass the store of an earlier pull with --db)")
        }
        return try FeedStore.open(path: path)
    }

    /// `feedagg show`: a page of the unified stream from the store, with no network at all.
    public func show(_ settings: ShowSettings) throws -> StoredStreamPage {
        let declared = try declaredFeeds(configPath: settings.configPath)
        let names = declared.map(\.name)
        for name in settings.feeds where !names.contains(name) {
            throw ConfigError(
                "no feed named '\(name)' in \(settings.configPath)", at: nil,
                notes: (Suggestion.closest(to: name, in: names).map { ["did you mean '\($0)'?"] } ?? [])
                    + ["declared feeds: \(names.joined(separator: ", "))"])
        }
        let types = registry.descriptors.map(\.typeName)
        for source in settings.sources where !types.contains(source) {
            throw ConfigError(
                "unknown source type '\(source)'", at: nil,
                notes: (Suggestion.closest(to: source, in: types).map { ["did you mean '\($0)'?"] } ?? [])
                    + ["source types: \(types.joined(separator: ", "))"])
        }
        let cursor = try settings.after.map(StreamCursor.init)
        let store = try openExistingStore(settings.store)
        defer { try? store.close() }
        let feeds = settings.feeds.isEmpty ? names : names.filter(settings.feeds.contains)
        let sources = settings.sources.isEmpty ? nil : settings.sources
        if let cursor {
            return try store.stream(feeds: feeds, sources: sources, after: cursor, limit: settings.perPage)
        }
        return try store.stream(feeds: feeds, sources: sources, page: settings.page, perPage: settings.perPage)
    }

    /// `feedagg feeds`: every declared feed with what the store holds, then stored feeds no longer declared.
    public func feedStatuses(configPath: String, store location: StoreLocation) throws -> [FeedStatus] {
        let declared = try declaredFeeds(configPath: configPath)
        let (path, _) = try location.resolve(environment: environment)
        var stored: [String: FeedSummary] = [:]
        if FileManager.default.fileExists(atPath: path) {
            let store = try FeedStore.open(path: path)
            defer { try? store.close() }
            for summary in try store.feedSummaries() { stored[summary.name] = summary }
        }
        var statuses = declared.map { FeedStatus(name: $0.name, source: $0.source, declared: true, stored: stored[$0.name]) }
        let names = Set(declared.map(\.name))
        for summary in stored.values.sorted(by: { $0.name < $1.name }) where !names.contains(summary.name) {
            statuses.append(FeedStatus(name: summary.name, source: summary.source, declared: false, stored: summary))
        }
        return statuses
    }

    /// `feedagg prune`: deletes the stored feeds feeds.yaml no longer declares, with their items and
    /// cache; returns what went (nothing when `dryRun`).
    public func prune(configPath: String, store location: StoreLocation, dryRun: Bool) throws
        -> [(name: String, items: Int)]
    {
        let declared = try declaredFeeds(configPath: configPath).map(\.name)
        guard FileManager.default.fileExists(atPath: try location.resolve(environment: environment).path) else {
            return []  // no store yet: nothing to prune
        }
        let store = try openExistingStore(location)
        defer { try? store.close() }
        let keep = Set(declared)
        let removed = try store.feedSummaries().filter { !keep.contains($0.name) }.map { ($0.name, $0.itemCount) }
        guard !dryRun, !removed.isEmpty else { return removed }
        try store.prune(keeping: declared)
        return removed
    }
}

/// Renders `feedagg feeds`.
public enum FeedStatusRenderer {
    /// A table (or JSON with `json`), times in UTC with their age relative to `now`.
    public static func render(_ statuses: [FeedStatus], format: OutputFormat, now: Date = Date()) -> String {
        switch format {
        case .json, .jsonl:
            let objects = statuses.map(json)
            if format == .jsonl { return objects.map { $0.serialized() + "\n" }.joined() }
            return JSON.object([("feeds", .array(objects))]).serialized() + "\n"
        case .table:
            var rows = [["FEED", "SOURCE", "ITEMS", "LAST UPDATED", "PAGES", "REQUESTS", "LAST ERROR"]]
            for status in statuses {
                let stored = status.stored
                let name = status.declared ? status.name : status.name + " (removed; `feedagg prune` deletes it)"
                rows.append([
                    name, status.source, stored.map { String($0.itemCount) } ?? "-",
                    stored?.lastSuccessAt.map { "\(timestamp($0)) (\(age($0, now: now)))" } ?? "never",
                    stored?.lastPages.map(String.init) ?? "-", stored?.lastRequests.map(String.init) ?? "-",
                    (stored?.lastError ?? "-")
                        + (stored?.resumesAtPage.map { " (the next pull resumes at page \($0))" } ?? ""),
                ])
            }
            let widths = (0..<6).map { column in rows.map { $0[column].count }.max() ?? 0 }
            return rows.map { row in
                (0..<6).map { row[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: "  ")
                    + "  " + row[6]
            }.joined(separator: "\n") + "\n"
        }
    }

    static func json(_ status: FeedStatus) -> JSON {
        let stored = status.stored
        func int(_ value: Int?) -> JSON { value.map(JSON.int) ?? .null }
        return .object([
            ("name", .string(status.name)), ("source", .string(status.source)), ("declared", .bool(status.declared)),
            ("items", int(stored?.itemCount)), ("missing_items", int(stored?.missingCount)),
            ("last_updated_at", .optionalString(stored?.lastSuccessAt.map(ISO8601.string(from:)))),
            ("last_attempt_at", .optionalString(stored?.lastAttemptAt.map(ISO8601.string(from:)))),
            ("last_error", .optionalString(stored?.lastError)),
            ("last_pages", int(stored?.lastPages)), ("last_requests", int(stored?.lastRequests)),
            ("resumes_at_page", int(stored?.resumesAtPage)),
        ])
    }

    static func timestamp(_ date: Date) -> String {
        ISO8601.string(from: date).replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: " UTC")
    }

    /// `12 s ago`, `3 min ago`, `5 h ago`, `2 days ago`.
    static func age(_ date: Date, now: Date) -> String {
        let seconds = max(0, Int(now.timeIntervalSince(date)))
        switch seconds {
        case ..<60: return "\(seconds) s ago"
        case ..<3600: return "\(seconds / 60) min ago"
        case ..<86_400: return "\(seconds / 3600) h ago"
        default: return "\(seconds / 86_400) days ago"
        }
    }
}

extension StoredStreamPage {
    /// The page in the shape ``StreamRenderer`` prints (cursor access has no page number: 0).
    public var streamPage: StreamPage {
        StreamPage(page: page ?? 0, perPage: perPage, totalItems: totalItems, totalPages: totalPages, entries: entries)
    }

    /// Rendered in `format`; JSON carries `next_cursor`.
    public func rendered(_ format: OutputFormat, width: Int = 120) -> String {
        var text = StreamRenderer.render(
            streamPage, format: format, width: width, extra: [("next_cursor", .optionalString(nextCursor))])
        if format == .table, let nextCursor, !entries.isEmpty { text += "next: --after \(nextCursor)\n" }
        return text
    }
}
