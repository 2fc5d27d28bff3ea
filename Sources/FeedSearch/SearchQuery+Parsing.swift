import FeedCore
import Foundation

extension SearchQuery {
    /// Parses `text` (docs/query.md); an empty or blank query is ``everything``.
    ///
    /// - Throws: ``SearchQueryError`` with the column of the first problem.
    public init(parsing text: String) throws(SearchQueryError) {
        var parser = SearchQueryParser(text)
        self = try parser.parse()
    }
}

/// The query language's recursive-descent parser: terms joined by AND (juxtaposition), `OR`
/// binding tighter, `-` for NOT, parentheses to group.
struct SearchQueryParser {
    private let text: String
    private let characters: [Character]
    private var index = 0

    /// The fields a `name:` prefix may name.
    static let fields = ["title", "summary", "author", "feed", "source", "after", "before", "newer", "older"]

    init(_ text: String) {
        self.text = text
        characters = Array(text)
    }

    mutating func parse() throws(SearchQueryError) -> SearchQuery {
        let query = try sequence(closing: nil)
        skipSpaces()
        if index < characters.count {
            throw error("unexpected ')': no '(' opens it", at: index)
        }
        return query
    }

    // MARK: - Grammar

    /// `group*` up to `)` (when `closing` is the opening parenthesis's index) or the end.
    private mutating func sequence(closing: Int?) throws(SearchQueryError) -> SearchQuery {
        var parts: [SearchQuery] = []
        while true {
            skipSpaces()
            guard index < characters.count else {
                if let closing { throw error("'(' is never closed", at: closing) }
                break
            }
            if characters[index] == ")" {
                guard closing != nil else { throw error("unexpected ')': no '(' opens it", at: index) }
                break
            }
            if isOperator(at: index) { throw error("OR needs a term before it", at: index) }
            parts.append(try orGroup())
        }
        return parts.count == 1 ? parts[0] : .all(parts)
    }

    /// `unary (OR unary)*`.
    private mutating func orGroup() throws(SearchQueryError) -> SearchQuery {
        var parts = [try unary()]
        while true {
            let save = index
            skipSpaces()
            guard isOperator(at: index) else {
                index = save
                break
            }
            let orAt = index
            index += 2
            skipSpaces()
            guard index < characters.count, characters[index] != ")", !isOperator(at: index) else {
                throw error("OR needs a term after it", at: orAt)
            }
            parts.append(try unary())
        }
        return parts.count == 1 ? parts[0] : .any(parts)
    }

    /// `-unary` or a primary.
    private mutating func unary() throws(SearchQueryError) -> SearchQuery {
        if characters[index] == "-" {
            let at = index
            index += 1
            guard index < characters.count, !characters[index].isWhitespace, characters[index] != ")" else {
                throw error("'-' must stand right before the term it excludes", at: at)
            }
            return .not(try unary())
        }
        return try primary()
    }

    /// `( sequence )`, a field term or a text term.
    private mutating func primary() throws(SearchQueryError) -> SearchQuery {
        if characters[index] == "(" {
            let open = index
            index += 1
            let inner = try sequence(closing: open)
            index += 1  // the ')'
            if case .all(let parts) = inner, parts.isEmpty { throw error("empty parentheses", at: open) }
            return inner
        }
        let start = index
        if let field = try fieldName() {
            let valueStart = index
            guard index < characters.count, !characters[index].isWhitespace, characters[index] != ")" else {
                throw error("'\(field):' needs a value right after it", at: start)
            }
            return try fieldTerm(field, at: start, valueAt: valueStart)
        }
        return .text(try textTerm(field: nil, at: start))
    }

    // MARK: - Terms

    private mutating func fieldTerm(_ field: String, at start: Int, valueAt valueStart: Int) throws(SearchQueryError)
        -> SearchQuery
    {
        switch field {
        case "title", "summary", "author":
            return .text(try textTerm(field: SearchQuery.Field(rawValue: field), at: valueStart))
        case "feed", "source":
            let value = bareWord()
            guard !value.isEmpty, !value.hasPrefix("\"") else {
                throw error("'\(field):' takes a name without quotes, e.g. \(field):\(field == "feed" ? "swift-repos" : "github.repos")", at: valueStart)
            }
            return field == "feed" ? .feed(value) : .source(value)
        case "after", "before":
            let value = bareWord()
            guard let day = Self.day(value) else {
                throw error("'\(field):' takes a day as YYYY-MM-DD (UTC), found '\(value)'", at: valueStart)
            }
            return .date(field == "after" ? .onOrAfter(day) : .before(day))
        default:  // newer, older
            let value = bareWord()
            guard let age = Self.age(value) else {
                throw error("'\(field):' takes an age: a number and m, h, d or w (7d, 12h), found '\(value)'", at: valueStart)
            }
            return .date(field == "newer" ? .newer(age) : .older(age))
        }
    }

    /// A word, `word*` or `"a phrase"` at the cursor.
    private mutating func textTerm(field: SearchQuery.Field?, at start: Int) throws(SearchQueryError) -> SearchQuery.TextTerm {
        if characters[index] == "\"" {
            let open = index
            index += 1
            var phrase = ""
            while index < characters.count, characters[index] != "\"" {
                phrase.append(characters[index])
                index += 1
            }
            guard index < characters.count else { throw error("the phrase is never closed with '\"'", at: open) }
            index += 1
            var prefix = false
            if index < characters.count, characters[index] == "*" {
                prefix = true
                index += 1
            }
            let tokens = SearchText.tokens(phrase)
            guard !tokens.isEmpty else { throw error("the phrase has no letters or digits to search for", at: open) }
            return SearchQuery.TextTerm(tokens: tokens, prefix: prefix, field: field)
        }
        var word = bareWord()
        var prefix = false
        if word.hasSuffix("*") {
            prefix = true
            word.removeLast()
        }
        let tokens = SearchText.tokens(word)
        guard !tokens.isEmpty else { throw error("'\(word)\(prefix ? "*" : "")' has no letters or digits to search for", at: start) }
        if prefix && word.last.map({ !($0.isLetter || $0.isNumber) }) == true {
            throw error("'*' must end a word, e.g. swi*", at: start)
        }
        return SearchQuery.TextTerm(tokens: tokens, prefix: prefix, field: field)
    }

    /// A known `name:` at the cursor (consumed), or `nil` (nothing consumed). An unknown
    /// `letters:` right before a value (not `//`, as in a URL) is an error naming the fields.
    private mutating func fieldName() throws(SearchQueryError) -> String? {
        var end = index
        while end < characters.count, characters[end].isASCII, characters[end].isLetter { end += 1 }
        guard end > index, end < characters.count, characters[end] == ":" else { return nil }
        let name = String(characters[index..<end]).lowercased()
        guard Self.fields.contains(name) else {
            let next = end + 1 < characters.count ? characters[end + 1] : " "
            if next.isWhitespace || next == "/" { return nil }
            let hint = Suggestion.closest(to: name, in: Self.fields).map { "did you mean '\($0):'? " } ?? ""
            throw error("unknown field '\(name):'; \(hint)fields: \(Self.fields.map { $0 + ":" }.joined(separator: " "))", at: index)
        }
        index = end + 1
        return name
    }

    /// Characters up to white space or a parenthesis.
    private mutating func bareWord() -> String {
        var word = ""
        while index < characters.count, !characters[index].isWhitespace, characters[index] != "(", characters[index] != ")" {
            word.append(characters[index])
            index += 1
        }
        return word
    }

    // MARK: - Values

    /// `YYYY-MM-DD` as the first instant of that day in UTC.
    static func day(_ text: String) -> Date? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(year: year, month: month, day: day)
        guard components.isValidDate(in: calendar), let date = calendar.date(from: components) else { return nil }
        return date
    }

    /// `7d`, `12h`, `30m`, `2w` in seconds.
    static func age(_ text: String) -> TimeInterval? {
        let units: [Character: Double] = ["m": 60, "h": 3600, "d": 86_400, "w": 604_800]
        guard let unit = text.last.flatMap({ units[$0] }), let number = Double(text.dropLast()), number.isFinite, number >= 0
        else { return nil }
        return number * unit
    }

    // MARK: - Lexing helpers

    private mutating func skipSpaces() {
        while index < characters.count, characters[index].isWhitespace { index += 1 }
    }

    /// Whether the word `OR` (upper case, alone) stands at `position`.
    private func isOperator(at position: Int) -> Bool {
        guard position + 1 < characters.count, characters[position] == "O", characters[position + 1] == "R" else {
            return false
        }
        let after = position + 2
        return after == characters.count || characters[after].isWhitespace || characters[after] == "(" || characters[after] == ")"
    }

    private func error(_ message: String, at position: Int) -> SearchQueryError {
        SearchQueryError(message, in: text, column: position + 1)
    }
}
