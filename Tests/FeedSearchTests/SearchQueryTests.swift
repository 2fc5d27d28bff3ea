@testable import FeedSearch
import Foundation
import Testing

// The query language (docs/query.md): its parser, its errors with a column and a caret, and the
// reference evaluator every store engine's SQL is compared with.

@Suite("Search query language")
struct SearchQueryTests {
    static let now = Date(timeIntervalSince1970: 1_764_240_000)  // 2025-11-27T10:40:00Z
    static func doc(
        _ title: String, summary: String? = nil, author: String? = nil, feeds: [String] = ["repos"],
        source: String = "github.repos", daysAgo: Double? = 1
    ) -> SearchDocument {
        SearchDocument(
            title: title, summary: summary, author: author, feeds: feeds, source: source,
            date: daysAgo.map { now.addingTimeInterval(-$0 * 86_400) })
    }
    static func matches(_ query: String, _ document: SearchDocument) throws -> Bool {
        try SearchQuery(parsing: query).matches(document, now: now)
    }

    @Test("tokens: runs of letters and digits, folded for case, diacritics and width; no stemming")
    func tokens() {
        #expect(SearchText.tokens("Swift-NIO 2.0: Ünïcode ＦＵＬＬ ﬁle_name") == ["swift", "nio", "2", "0", "unicode", "full", "file", "name"])
        #expect(SearchText.tokens("Café déjà vu") == ["cafe", "deja", "vu"])
        #expect(SearchText.tokens("日本語 テキスト") == ["日本語", "テキスト"])
        #expect(SearchText.tokens("  ,,, ") == [])
        #expect(SearchText.tokens("running runs") == ["running", "runs"])
    }

    @Test("words: every word must match a whole token of title, summary or author")
    func words() throws {
        let item = Self.doc("Swift on Linux", summary: "A server-side guide", author: "Ada Lovelace")
        #expect(try Self.matches("swift", item))
        #expect(try Self.matches("SWIFT linux", item))
        #expect(try Self.matches("server lovelace", item), "words may be in different fields")
        #expect(try !Self.matches("swif", item), "a word is a whole token")
        #expect(try !Self.matches("swift rust", item), "every word must match")
        #expect(try Self.matches("café", Self.doc("Cafe tour")), "diacritics folded")
        #expect(try !Self.matches("run", Self.doc("running fast")), "no stemming")
    }

    @Test("prefixes and phrases: word* and \"two words\" adjacent and in order, within one field")
    func prefixesAndPhrases() throws {
        let item = Self.doc("Server side Swift", summary: "side notes", author: "Swift Team")
        #expect(try Self.matches("serv*", item))
        #expect(try !Self.matches("xerv*", item))
        #expect(try Self.matches("\"server side\"", item))
        #expect(try !Self.matches("\"side server\"", item), "in order")
        #expect(try !Self.matches("\"swift side\"", item), "adjacent")
        #expect(try !Self.matches("\"swift swift\"", Self.doc("Swift", author: "Swift")), "within one field")
        #expect(try Self.matches("\"server si\"*", item), "a phrase's last word may be a prefix")
        #expect(try Self.matches("swift-nio", Self.doc("the swift nio project")), "a hyphenated word is its tokens, adjacent")
    }

    @Test("fields: title:, summary:, author: look only there; feed: and source: name the item's feeds and type")
    func fields() throws {
        let item = Self.doc("Swift", summary: "rust notes", author: "Graydon", feeds: ["a", "b"], source: "feed")
        #expect(try Self.matches("title:swift", item))
        #expect(try !Self.matches("title:rust", item))
        #expect(try Self.matches("summary:rust author:gray*", item))
        #expect(try Self.matches("author:\"graydon\"", item))
        #expect(try Self.matches("feed:a", item) && Self.matches("feed:b", item), "a shared item is in each of its feeds")
        #expect(try !Self.matches("feed:c", item))
        #expect(try Self.matches("source:feed", item) && !Self.matches("source:github.repos", item))
    }

    @Test("dates: after:/before: days in UTC, newer:/older: ages; an undated item matches no date term")
    func dates() throws {
        let day = Self.doc("x", daysAgo: 3)  // 2025-11-24T10:40Z
        #expect(try Self.matches("after:2025-11-24", day) && !Self.matches("after:2025-11-25", day))
        #expect(try Self.matches("before:2025-11-25", day) && !Self.matches("before:2025-11-24", day))
        #expect(try Self.matches("newer:4d", day) && !Self.matches("newer:2d", day))
        #expect(try Self.matches("older:71h", day) && !Self.matches("older:1w", day))
        #expect(try Self.matches("newer:4321m", day))
        let undated = Self.doc("x", daysAgo: nil)
        for term in ["after:2000-01-01", "before:2100-01-01", "newer:100w", "older:1m"] {
            #expect(try !Self.matches(term, undated), "\(term) on an undated item")
        }
        #expect(try Self.matches("-newer:1w", undated), "its negation does")
    }

    @Test("-term excludes; OR binds tighter than the implicit AND; parentheses group")
    func operators() throws {
        let swift = Self.doc("swift server"), rust = Self.doc("rust server"), go = Self.doc("go server")
        #expect(try Self.matches("server -rust", swift) && !Self.matches("server -rust", rust))
        let query = "server swift OR rust"  // server AND (swift OR rust)
        #expect(try Self.matches(query, swift) && Self.matches(query, rust) && !Self.matches(query, go))
        #expect(try SearchQuery(parsing: "x a OR b") == .all([.text(.init(tokens: ["x"])), .any([.text(.init(tokens: ["a"])), .text(.init(tokens: ["b"]))])]))
        #expect(try Self.matches("(swift OR go) -(rust OR go)", swift) && !Self.matches("(swift OR go) -(rust OR go)", go))
        #expect(try Self.matches("swift or", Self.doc("swift or not")), "lower-case or is a word")
        #expect(try SearchQuery(parsing: "   ") == .everything && SearchQuery.everything.matches(go))
    }

    @Test(
        "a malformed query is an error with its column and a caret",
        arguments: [
            ("swift (rust", 7, "'(' is never closed"),
            ("swift)", 6, "unexpected ')'"),
            ("OR swift", 1, "OR needs a term before it"),
            ("swift OR", 7, "OR needs a term after it"),
            ("swift - rust", 7, "'-' must stand right before"),
            ("\"open phrase", 1, "the phrase is never closed"),
            ("after:2026-13-01", 7, "takes a day as YYYY-MM-DD"),
            ("newer:7x", 7, "takes an age"),
            ("title: swift", 1, "'title:' needs a value"),
            ("titel:swift", 1, "unknown field 'titel:'; did you mean 'title:'?"),
            ("() swift", 1, "empty parentheses"),
            ("***", 1, "has no letters or digits"),
        ])
    func errors(query: String, column: Int, message: String) {
        #expect(throws: SearchQueryError.self) { try SearchQuery(parsing: query) }
        do {
            _ = try SearchQuery(parsing: query)
        } catch {
            #expect(error.column == column, "\(error)")
            #expect(error.message.contains(message), "\(error)")
            let lines = error.description.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines[0] == "query:1:\(column): error: \(error.message)")
            #expect(lines[1] == "    " + query && lines[2] == "    " + String(repeating: " ", count: column - 1) + "^")
        }
    }

    @Test("20,000 random queries of the language's own characters parse or fail with a column inside the query, never crash")
    func randomQueries() {
        let alphabet = Array("ab OR()-\"*:title:feed:after:newer:7d2026-01-31 \u{0}é\t")
        var state: UInt64 = 0x5EED
        for _ in 0..<20_000 {
            var text = ""
            for _ in 0..<Int(state % 24) {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                text.append(alphabet[Int((state >> 33) % UInt64(alphabet.count))])
            }
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            do {
                let query = try SearchQuery(parsing: text)
                _ = query.matches(Self.doc("ab OR title"), now: Self.now)
            } catch {
                #expect((1...max(1, text.count + 1)).contains(error.column), "\(text.debugDescription): \(error)")
            }
        }
    }

    @Test("URLs and colons in words stay text")
    func colonsInText() throws {
        #expect(try Self.matches("https://swift.org", Self.doc("see https swift org")))
        #expect(try Self.matches("ratio 16:9", Self.doc("ratio 16 9")))
    }
}

@Suite("SearchText's ASCII fast path")
struct SearchTextASCIITests {
    @Test("gives the folded path's tokens for every ASCII text, and steps aside for any other")
    func sameTokens() {
        var random = SystemRandomNumberGenerator()
        let alphabet = Array("aZ09 -_.,:;'\"\t\r\nQxy7/\\()*#@!?%&+=<>[]{}|~`^$")
        for _ in 0..<3_000 {
            let text = String((0..<Int.random(in: 0...40, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
            #expect(SearchText.asciiTokens(text) == SearchText.foldedTokens(text), "\(text.debugDescription)")
        }
        #expect(SearchText.asciiTokens("Café") == nil)
        #expect(SearchText.tokens("Crème BRÛLÉE, ﬁle") == ["creme", "brulee", "file"])
        let long = Array(repeating: "w", count: SearchText.fieldLimit + 3).joined(separator: " ")
        #expect(SearchText.asciiTokens(long)?.count == SearchText.fieldLimit)
        #expect(SearchText.foldedTokens(long).count == SearchText.fieldLimit)
    }
}
