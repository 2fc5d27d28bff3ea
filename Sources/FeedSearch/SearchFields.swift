/// The text fields of one item as search sees them, each tokenized (``SearchText/tokens(_:)``) on
/// first use and only when a term looks in it: what the reference evaluator and the stores' row
/// tests match text terms against.
package struct SearchFields {
    package var title: String?
    package var summary: String?
    package var author: String?
    private var known: [SearchQuery.Field: [String]] = [:]

    package init(title: String?, summary: String?, author: String?) {
        self.title = title
        self.summary = summary
        self.author = author
    }

    /// The tokens of `field`.
    package mutating func tokens(_ field: SearchQuery.Field) -> [String] {
        if let found = known[field] { return found }
        let text =
            switch field {
            case .title: title
            case .summary: summary
            case .author: author
            }
        let found = text.map(SearchText.tokens) ?? []
        known[field] = found
        return found
    }

    /// Whether `term` is in its field, or in any text field when it names none.
    package mutating func contain(_ term: SearchQuery.TextTerm) -> Bool {
        for field in term.field.map({ [$0] }) ?? SearchQuery.Field.allCases
        where SearchQuery.contains(tokens(field), term) {
            return true
        }
        return false
    }
}
