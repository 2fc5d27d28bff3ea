public import FeedStore
import FeedCore
import Foundation

/// Prints `feedagg show --all` as it is read, one page at a time.
///
/// - `table`: one header, then every row (on a terminal the columns are measured on the first
///   page and kept), then `N items` as the footer.
/// - `json`: one JSON document, `{"total_items":N,"items":[…]}`, written item by item.
/// - `jsonl`: one item per line.
/// - `atom`, `jsonfeed`: one feed document named by the identity, holding every entry and no next
///   cursor; Atom's feed `updated` (the newest entry's) is written after the entries, once known.
public struct StreamPrinter {
    let format: OutputFormat
    let style: TableStyle
    let console: Console
    let identity: FeedIdentity
    private var layout: TableLayout?
    private var printed = 0
    private var started = false
    private var newest: Date?

    /// A printer writing `format` to `console`; feed documents are named by `identity`.
    public init(format: OutputFormat, style: TableStyle, console: Console, identity: FeedIdentity = FeedIdentity(feeds: [])) {
        self.format = format
        self.style = style
        self.console = console
        self.identity = identity
    }

    /// Prints the entries of the next page.
    public mutating func print(_ page: StoredStreamPage) {
        var text = ""
        switch format {
        case .atom:
            if !started { text = AtomRenderer.head(identity: identity, updated: nil, nextCursor: nil) }
            for entry in page.entries.map(SyndicationEntry.init) {
                newest = max(newest ?? entry.updated, entry.updated)
                text += AtomRenderer.entry(entry)
            }
        case .jsonfeed:
            if !started { text = JSONFeedRenderer.head(identity: identity) }
            for (index, entry) in page.entries.enumerated() {
                if printed + index > 0 { text += "," }
                text += JSONFeedRenderer.item(SyndicationEntry(entry)).serialized()
            }
        case .jsonl:
            text = page.entries.map { StreamRenderer.itemJSON($0).serialized() + "\n" }.joined()
        case .json:
            if !started { text = #"{"total_items":\#(page.totalItems),"items":["# }
            for (index, entry) in page.entries.enumerated() {
                if printed + index > 0 { text += "," }
                text += StreamRenderer.itemJSON(entry).serialized()
            }
        case .table:
            if layout == nil, !page.entries.isEmpty || !style.isTerminal {
                let measured = TableLayout(entries: page.entries, style: style)
                layout = measured
                text = measured.header + "\n"
            }
            if let layout { text += page.entries.map { layout.row($0) + "\n" }.joined() }
        }
        started = true
        printed += page.entries.count
        if !text.isEmpty { console.output(text) }
    }

    /// Ends the output: closes the JSON document, prints the table's footer.
    public func finish() {
        switch format {
        case .atom:
            let head = started ? "" : AtomRenderer.head(identity: identity, updated: nil, nextCursor: nil)
            console.output(head + AtomRenderer.tail(updated: newest ?? SyndicationEntry.unknownDate))
        case .jsonfeed:
            let head = started ? "" : JSONFeedRenderer.head(identity: identity)
            console.output(head + JSONFeedRenderer.tail(identity: identity, nextCursor: nil))
        case .jsonl: break
        case .json: console.output((started ? "" : #"{"total_items":0,"items":["#) + "]}\n")
        case .table:
            let line = printed == 0 ? "(no items)" : Plural.of(printed, "item")
            if printed == 0 && style.isTerminal {
                console.output(line + "\n")
            } else {
                console.print(RenderedOutput(body: "", footer: [line]), style: style)
            }
        }
    }
}
