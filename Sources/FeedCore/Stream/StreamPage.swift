import Foundation

/// One page of the unified stream.
public struct StreamPage: Sendable {
    /// 1-based page number.
    public var page: Int
    /// Entries per page.
    public var perPage: Int
    /// Entries in the whole stream.
    public var totalItems: Int
    /// Pages in the whole stream.
    public var totalPages: Int
    /// This page's entries.
    public var entries: [StreamEntry]

    /// Creates a page.
    public init(page: Int, perPage: Int, totalItems: Int, totalPages: Int, entries: [StreamEntry]) {
        self.page = page
        self.perPage = perPage
        self.totalItems = totalItems
        self.totalPages = totalPages
        self.entries = entries
    }
}
