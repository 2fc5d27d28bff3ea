import FeedSearch
import FeedStorage
import Testing

/// The text form of a ``TextSet`` that a walk binds for `feedagg_text_match`, and the test of
/// one row's fields against it.
@Suite("A text set tested on one row")
struct TextSetRowTestTests {
    static let sets: [TextSet] = [
        .term(.init(tokens: ["swift"])),
        .term(.init(tokens: ["serv"], prefix: true, field: .title)),
        .term(.init(tokens: ["server", "side"], field: .summary)),
        .term(.init(tokens: ["ana", "lo"], prefix: true, field: .author)),
        .any([.term(.init(tokens: ["swift"])), .all([.term(.init(tokens: ["rust"])), .term(.init(tokens: ["日本語"]))])]),
        .all([]),
        .any([]),
    ]

    @Test("every set reads back as itself", arguments: sets)
    func roundTrip(set: TextSet) {
        #expect(TextSet(rowTest: set.rowTest) == set)
    }

    @Test("other text is no set", arguments: ["", "swift", "T-=2 one", "T?=1 a", "T-x1 a", "&2 T-=1 a", "|1 T-=1 a extra", "T-=0"])
    func malformed(text: String) {
        #expect(TextSet(rowTest: text) == nil)
    }

    @Test("a row matches as the reference evaluator says")
    func matching() {
        let phrase = TextSet.term(.init(tokens: ["server", "side"]))
        #expect(phrase.matches(title: "Server-side Swift", summary: nil, author: nil))
        #expect(!phrase.matches(title: "side server", summary: nil, author: nil))
        let prefix = TextSet.term(.init(tokens: ["caf"], prefix: true, field: .author))
        #expect(prefix.matches(title: "x", summary: nil, author: "Café Ana"))
        #expect(!prefix.matches(title: "Café", summary: "café", author: nil))
        let either = TextSet.any([.term(.init(tokens: ["rust"])), .term(.init(tokens: ["zoe"], field: .author))])
        #expect(either.matches(title: "x", summary: nil, author: "Zoë"))
        #expect(!either.matches(title: "rusty", summary: nil, author: nil))
        #expect(TextSet.all([]).matches(title: "", summary: nil, author: nil))
        #expect(!TextSet.any([]).matches(title: "rust", summary: nil, author: nil))
    }
}
