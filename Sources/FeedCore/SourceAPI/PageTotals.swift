/// Totals a page-number API reports in its body.
public struct PageTotals: Sendable, Equatable {
    /// The page the body says it is.
    public var currentPage: Int?
    /// How many pages there are.
    public var totalPages: Int?
    /// How many items there are.
    public var totalItems: Int?

    /// Creates totals.
    public init(currentPage: Int? = nil, totalPages: Int? = nil, totalItems: Int? = nil) {
        self.currentPage = currentPage
        self.totalPages = totalPages
        self.totalItems = totalItems
    }
}
