public import FeedCore
import Foundation

/// A position in the stored stream: the last entry a page showed, as an opaque token.
///
/// The stream's order is a total order over persisted values — (placed first, `sort_key`
/// descending, feed declaration rank, `feed_position`, feed, id) — so the entries after a cursor are
/// the same whatever was inserted meanwhile, except the newly inserted items that sort after it.
/// Items newer than the cursor appear before it and do not disturb it. Use a cursor with the same
/// `feeds` and `sources` that produced it.
public struct StreamCursor: Sendable, Hashable, CustomStringConvertible {
    /// The fields of a token; engines build one from the last entry of a page.
    package struct Position: Codable, Hashable {
        /// Format version.
        package var v: Int
        /// 1 when the entry was not placed yet (undated items listed last), else 0.
        package var p: Int
        /// The sort key's bit pattern (hex).
        package var k: String
        /// The feed's rank in the `feeds` list.
        package var r: Int
        /// The feed position.
        package var n: Int64
        /// Feed name.
        package var f: String
        /// Item id.
        package var i: String

        /// Creates the fields.
        package init(v: Int, p: Int, k: String, r: Int, n: Int64, f: String, i: String) {
            (self.v, self.p, self.k, self.r, self.n, self.f, self.i) = (v, p, k, r, n, f, i)
        }
    }

    /// The decoded fields.
    package let position: Position
    /// The opaque token (base64url), to hand back to ``init(_:)``.
    public let token: String

    /// The cursor of `position`.
    ///
    /// The token is the base64url of the position's JSON as `JSONEncoder` with `.sortedKeys` writes
    /// it, written by ``CursorCoding`` (byte for byte the same; a Foundation encoder and its
    /// base64 rewriting cost about 2 % of a served page).
    package init(position: Position) throws {
        self.position = position
        token = CursorCoding.base64URL(CursorCoding.json(position))
    }

    /// Decodes a token returned as ``StoredStreamPage/nextCursor``.
    ///
    /// Tokens of the shape feedagg writes are read by ``CursorCoding``; anything else goes through
    /// `JSONDecoder`, so every token accepted before is accepted the same way.
    public init(_ token: String) throws {
        guard let position = CursorCoding.position(token: token) ?? Self.decoded(token) else {
            throw StoreError(
                kind: .invalidCursor, path: "", operation: "decode cursor",
                detail: "'\(token.prefix(80))' is not a cursor this feedagg wrote")
        }
        guard position.v == 1, position.p == 0 || position.p == 1, UInt64(position.k, radix: 16) != nil else {
            throw StoreError(
                kind: .invalidCursor, path: "", operation: "decode cursor",
                detail: "'\(token.prefix(80))' has an unknown format version or fields")
        }
        self.position = position
        self.token = token
    }

    /// The token.
    public var description: String { token }

    /// The sort key the cursor stands at.
    package var sortKey: Double { Double(bitPattern: UInt64(position.k, radix: 16) ?? 0) }

    /// `token`'s position read by Foundation (the general path).
    private static func decoded(_ token: String) -> Position? {
        guard let data = data(base64URL: token) else { return nil }
        return try? JSONDecoder().decode(Position.self, from: data)
    }

    private static func data(base64URL text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}

/// One page of the stored stream.
public struct StoredStreamPage: Sendable {
    /// This page's entries, in stream order. Their items carry no original JSON (``FeedItem/raw``
    /// is `nil`): no output shows it, and a store that keeps it (`keep_raw: true`, ~5.5 KB for a
    /// GitHub repository against ~0.4 KB of mapped fields) keeps it for programs that read the
    /// store, so a page does not read it.
    public var entries: [StreamEntry]
    /// Entries in the whole (filtered, de-duplicated) stream.
    public var totalItems: Int
    /// Entries per page (the `limit`).
    public var perPage: Int
    /// Pages in the whole stream at `perPage`.
    public var totalPages: Int
    /// The 1-based page number, for page-number access; `nil` for cursor access.
    public var page: Int?
    /// The token for the page after this one (``StreamCursor/init(_:)``); `nil` when nothing follows.
    public var nextCursor: String?

    /// Creates a page (engines do).
    public init(
        entries: [StreamEntry], totalItems: Int, perPage: Int, totalPages: Int, page: Int?, nextCursor: String?
    ) {
        self.entries = entries
        self.totalItems = totalItems
        self.perPage = perPage
        self.totalPages = totalPages
        self.page = page
        self.nextCursor = nextCursor
    }
}
