public import FeedCore
public import Foundation

/// The store as the engine's ``PullMemory``: conditional requests from the HTTP cache, and
/// incremental baselines from the stored items.
///
/// A read that fails (a damaged row, an I/O error) is reported through `onError` and answered as
/// "nothing remembered": the pull then re-downloads instead of failing.
public struct StorePullMemory: PullMemory {
    /// The store.
    public let store: any StoreDriver
    /// Each feed's source type, by feed name: a baseline is only used for the same source type.
    public let sources: [String: String]
    /// Told about store reads that failed.
    public let onError: @Sendable (StoreError) -> Void
    /// When feeds are sent to a stand-in origin (a replay server on an ephemeral port), the
    /// stand-in origin and the feeds' real one: keys are written with the real origin, so they
    /// stay the same from one run to the next.
    public let originRewrite: (from: String, to: String)?
    /// The pulled feeds' states and cache entries read at once (``StoreDriver/pullMemorySnapshot(feeds:)``),
    /// answered before the store; `nil`: every read goes to the store.
    public var snapshot: PullMemorySnapshot?

    /// Creates the adapter.
    public init(
        store: any StoreDriver, sources: [String: String], originRewrite: (from: String, to: String)? = nil,
        onError: @escaping @Sendable (StoreError) -> Void = { _ in }
    ) {
        self.store = store
        self.sources = sources
        self.originRewrite = originRewrite
        self.onError = onError
    }

    /// The redacted URL, with the stand-in origin replaced by the real one.
    public func key(for url: URL) -> String {
        let key = Redaction.redact(url)
        guard let (from, to) = originRewrite, key.hasPrefix(from) else { return key }
        return to + key.dropFirst(from.count)
    }

    /// The cache entry of `key`, as a ``CachedResponse``.
    public func cachedResponse(for key: String) -> CachedResponse? {
        do {
            guard let entry = try snapshot?.takeCachedResponse(for: key) ?? store.cachedResponse(for: key) else { return nil }
            var rebuild: (@Sendable () -> DecodedPage?)?
            if let summary = entry.page, let feed = entry.feed {
                let store = self.store
                let report = self.report
                rebuild = {
                    do {
                        return try store.rebuildPage(summary, feed: feed)
                    } catch {
                        report(error)
                        return nil
                    }
                }
            }
            return CachedResponse(
                key: entry.url, etag: entry.etag, lastModified: entry.lastModified, headers: entry.headers,
                body: entry.body, storedPage: rebuild)
        } catch {
            report(error)
            return nil
        }
    }

    /// ``StoreDriver/baseline(for:source:)``.
    public func baseline(for feed: String) -> IncrementalBaseline? {
        guard let source = sources[feed] else { return nil }
        if let state = snapshot?.takeState(of: feed) { return state?.baseline(source: source) }
        return read { try store.baseline(for: feed, source: source) }
    }

    /// ``StoreDriver/storedDigests(for:)``.
    public func storedDigests(for feed: String) -> StoredDigests? {
        guard sources[feed] != nil else { return nil }
        return read { try store.storedDigests(for: feed) }
    }

    /// ``StoreDriver/heldItemIDs(for:)``.
    public func heldItemIDs(for feed: String) -> Set<String>? {
        guard sources[feed] != nil else { return nil }
        return read { try store.heldItemIDs(for: feed) }
    }

    /// ``StoreDriver/newestUpdate(for:)``.
    public func newestUpdate(for feed: String) -> Date? {
        guard sources[feed] != nil else { return nil }
        return read { try store.newestUpdate(for: feed) }
    }

    /// The page count of the feed's last complete walk (kept after a failed pull).
    public func knownPageCount(for feed: String) -> Int? {
        guard sources[feed] != nil else { return nil }
        return read { try store.previousPageCount(feed: feed) }
    }

    /// `body`'s answer, or `nil` after reporting the error it threw.
    private func read<Value>(_ body: () throws -> Value?) -> Value? {
        do {
            return try body()
        } catch {
            report(error)
            return nil
        }
    }

    private func report(_ error: any Error) {
        onError(
            error as? StoreError
                ?? StoreError(kind: .database, path: store.location, operation: "read", detail: "\(error)"))
    }
}
