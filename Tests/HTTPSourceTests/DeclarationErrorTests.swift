import FeedCore
import Foundation
import HTTPSource
import Testing

/// A valid declarative feed; each test below breaks one line of it.
private let lines = [
    "feeds:",
    "  - name: d",
    "    source: http",
    "    base_url: http://127.0.0.1:9",
    #"    url: "{+base_url}/v1/photos{?feature,rpp}""#,
    "    feature: editors",
    "    rpp: 100",
    #"    pagination: { style: page, total_pages: "$.total_pages" }"#,
    #"    items: "$.photos""#,
    #"    fields: { id: "$.id", title: "$.name" }"#,
]

/// The feed with line `number` (1-based) replaced by `text`, or removed when `text` is nil.
private func variant(_ number: Int, _ text: String?) -> String {
    var copy = lines
    if let text { copy[number - 1] = text } else { copy.remove(at: number - 1) }
    return copy.joined(separator: "\n") + "\n"
}

/// What a broken declaration must report.
struct ExpectedError: Sendable, CustomTestStringConvertible {
    var label: String
    var yaml: String
    var line: Int
    var column: Int
    var message: String
    var notes: [String] = []

    var testDescription: String { label }
}

@Suite("Declarative source configuration errors")
struct DeclarationErrorTests {
    @Test("the unbroken declaration loads")
    func valid() throws {
        let source = try Declared.source(variant(1, "feeds:"))
        #expect(source.firstPageURL.absoluteString == "http://127.0.0.1:9/v1/photos?feature=editors&rpp=100")
        #expect(source.pagination.name == "page")
    }

    static let cases: [ExpectedError] = [
        ExpectedError(
            label: "unclosed template expression, at its '{'",
            yaml: variant(5, #"    url: "{+base_url/v1/photos{?feature,rpp}""#), line: 5, column: 11,
            message: "invalid URI template in 'url': '{' is not closed by '}' before the next '{'"),
        ExpectedError(
            label: "unterminated template expression at the end",
            yaml: variant(5, #"    url: "{+base_url}/v1/photos{?feature,rpp""#), line: 5, column: 32,
            message: "invalid URI template in 'url': '{' is not closed by '}'"),
        ExpectedError(
            label: "reserved operator, plain scalar",
            yaml: variant(5, "    url: http://127.0.0.1:9/v1/photos{=feature}"), line: 5, column: 39,
            message: "invalid URI template in 'url': operator '=' is reserved for future extensions"),
        ExpectedError(
            label: "template variable the feed does not define, at the variable",
            yaml: variant(5, #"    url: "{+base_url}/v1/photos{?featur,rpp}""#), line: 5, column: 34,
            message: "template variable 'featur' is not defined by feed 'd'",
            notes: [
                "help: did you mean 'feature'?",
                "note: template variables are the feed's keys; add 'featur: …' to the feed",
            ]),
        ExpectedError(
            label: "unknown pagination style, with did-you-mean",
            yaml: variant(8, "    pagination: { style: pages }"), line: 8, column: 26,
            message: "unknown pagination style 'pages'",
            notes: ["help: did you mean 'page'?", "pagination styles: cursor, link, offset, page"]),
        ExpectedError(
            label: "pagination without a style",
            yaml: variant(8, "    pagination: { page_param: p }"), line: 8, column: 17,
            message: "'pagination' is missing required key 'style' (cursor, link, offset, page)"),
        ExpectedError(
            label: "a key of another pagination style",
            yaml: variant(8, #"    pagination: { style: page, next: "$.next" }"#), line: 8, column: 32,
            message: "unknown key 'next' in 'pagination' for style 'page'",
            notes: [
                "note: 'next' belongs to style cursor",
                "keys of style page: style, page_param, size_param, first_page, total_pages, total_items, current_page",
            ]),
        ExpectedError(
            label: "cursor pagination without 'next'",
            yaml: variant(8, "    pagination: { style: cursor, cursor_param: after }"), line: 8, column: 17,
            message:
                "'pagination' of style 'cursor' is missing required key 'next' (the JSON path of the next page's token)"),
        ExpectedError(
            label: "missing items",
            yaml: variant(9, nil), line: 2, column: 5,
            message: "feed 'd' (http) is missing required parameter 'items'"),
        ExpectedError(
            label: "missing fields.id",
            yaml: variant(10, #"    fields: { title: "$.name" }"#), line: 10, column: 13,
            message: #"'fields' is missing required key 'id' (a JSON path in the item, e.g. id: "$.id")"#),
        ExpectedError(
            label: "missing fields.title",
            yaml: variant(10, #"    fields: { id: "$.id", url: "$.url" }"#), line: 10, column: 13,
            message: #"'fields' is missing required key 'title' (a JSON path in the item, e.g. title: "$.name")"#),
        ExpectedError(
            label: "unknown key in fields, with did-you-mean",
            yaml: variant(10, #"    fields: { id: "$.id", titel: "$.name" }"#), line: 10, column: 27,
            message: "unknown key 'titel' in 'fields'",
            notes: [
                "help: did you mean 'title'?",
                "keys of 'fields': id, title, url, summary, author, author_url, avatar, image, published, updated, date_format",
            ]),
        ExpectedError(
            label: "bad JSON path in items, at the bad step",
            yaml: variant(9, #"    items: "$.photos..x""#), line: 9, column: 22,
            message: "invalid JSON path '$.photos..x' in 'items': expected a member name after '.'"),
        ExpectedError(
            label: "items path without '$'",
            yaml: variant(9, "    items: photos"), line: 9, column: 12,
            message: "invalid JSON path 'photos' in 'items': a JSON path starts with '$' (e.g. $.items or $[0])"),
        ExpectedError(
            label: "bad JSON path in a field",
            yaml: variant(10, #"    fields: { id: "$.id", title: "$[name]" }"#), line: 10, column: 37,
            message:
                "invalid JSON path '$[name]' in 'fields.title': expected an array index (0, 1, …) or a quoted key after '['"),
        ExpectedError(
            label: "bad text template in a field",
            yaml: variant(10, #"    fields: { id: "$.id", title: "{name} ({language)" }"#), line: 10, column: 43,
            message: "invalid text template in 'fields.title': '{' is not closed by '}' (write '{{' for a literal brace)"),
        ExpectedError(
            label: "pagination that is not a mapping",
            yaml: variant(8, "    pagination: page"), line: 8, column: 17,
            message: "'pagination' must be a mapping, found a scalar"),
        ExpectedError(
            label: "an extra key the template does not use, with did-you-mean",
            yaml: variant(7, "    rpp: 100\n    paginaton: { style: page }"), line: 8, column: 5,
            message: "unknown parameter 'paginaton' for source type 'http'",
            notes: [
                "help: did you mean 'pagination'?",
                "note: a key that is not a parameter of http must be a variable of the 'url' template",
                "parameters of http: allow_insecure_http, base_url, fields, filters, headers, interval, items, max_pages, name, order, pagination, per_page, source, token, url",
            ]),
        ExpectedError(
            label: "order with did-you-mean",
            yaml: variant(7, "    rpp: 100\n    order: newest_frist"), line: 8, column: 12,
            message: "'order' must be newest_first or unordered, found 'newest_frist'",
            notes: ["help: did you mean 'newest_first'?"]),
        ExpectedError(
            label: "missing base_url",
            yaml: variant(4, nil), line: 2, column: 5,
            message: "feed 'd' (http) is missing required parameter 'base_url'"),
        ExpectedError(
            label: "a template that does not expand to an http(s) URL",
            yaml: variant(5, #"    url: "ftp://h/{feature}{?rpp}""#), line: 5, column: 10,
            message: "'url' expands to 'ftp://h/editors?rpp=100', which is not an absolute http(s) URL"),
    ]

    @Test("each broken declaration reports its message at its line and column", arguments: cases)
    func broken(_ expected: ExpectedError) throws {
        let error = try #require(Declared.error(expected.yaml))
        #expect(error.message == expected.message)
        #expect(error.location?.line == expected.line, "\(error)")
        #expect(error.location?.column == expected.column, "\(error)")
        if !expected.notes.isEmpty { #expect(error.notes == expected.notes) }
    }

    @Test("built-in sources still reject unknown keys with did-you-mean")
    func builtInKeepsUnknownKeyErrors() throws {
        let error = try #require(
            Declared.error("feeds:\n  - name: r\n    source: github.repos\n    orgg: apple\n"))
        #expect(error.message == "unknown parameter 'orgg' for source type 'github.repos'")
        #expect(error.location?.line == 4 && error.location?.column == 5)
        #expect(error.notes.first == "help: did you mean 'org'?")
    }

    @Test("the caret points at the template variable")
    func caret() throws {
        let error = try #require(Declared.error(variant(5, #"    url: "{+base_url}/v1/photos{?featur,rpp}""#)))
        #expect(
            error.description.hasPrefix(
                """
                feeds.yaml:5:34: error: template variable 'featur' is not defined by feed 'd'
                      url: "{+base_url}/v1/photos{?featur,rpp}"
                                                   ^
                """))
    }
}
