/// Where page `page` of a stream of `total` entries lies, and from which end it is cheaper to
/// reach: both engines walk their stream index from the nearer end, so the last page costs what
/// the first does.
///
/// ```swift
/// var window = StreamPageWindow(page: 3, perPage: 50, total: total)
/// if !window.isEmpty { try scan.walk(reverse: window.fromBottom) { window.take($0) } }
/// let rows = window.rows
/// ```
public struct StreamPageWindow<Row> {
    /// The 1-based page asked for (at least 1).
    public let page: Int
    /// Entries per page (at least 1).
    public let perPage: Int
    /// Whether the page is nearer the end of the stream: walk up from the bottom.
    public let fromBottom: Bool
    /// Whether entries follow the page.
    public let more: Bool
    /// Entries on the page: 0 past the end (or when `page × perPage` overflows).
    public let count: Int
    /// Entries to pass over, from the end the walk starts at, before the page begins.
    private let skip: Int
    private var skipped = 0
    private var taken: [Row] = []

    /// The window of page `page` (clamped to 1), `perPage` (clamped to 1) per page, in a stream of
    /// `total` entries.
    public init(page: Int, perPage: Int, total: Int) {
        self.page = max(1, page)
        self.perPage = max(1, perPage)
        let (offset, overflow) = (self.page - 1).multipliedReportingOverflow(by: self.perPage)
        guard !overflow, offset < total else {
            (fromBottom, more, count, skip) = (false, false, 0, 0)
            return
        }
        let end = min(offset + self.perPage, total)
        fromBottom = offset > total - end
        more = end < total
        count = end - offset
        skip = fromBottom ? total - end : offset
    }

    /// Whether the page has no entries (nothing to walk).
    public var isEmpty: Bool { count == 0 }

    /// Entries the walk must visit from its end: those passed over plus the page.
    public var reach: Int { skip + count }

    /// Takes the walk's next row (counting it as passed over until the page begins); `false` once
    /// the page is full, to stop the walk.
    public mutating func take(_ row: Row) -> Bool {
        if skipped < skip {
            skipped += 1
            return true
        }
        taken.append(row)
        return taken.count < count
    }

    /// The page's rows in stream order (top to bottom, whichever way they were walked).
    public var rows: [Row] { fromBottom ? taken.reversed() : taken }
}
