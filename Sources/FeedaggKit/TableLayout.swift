public import FeedCore

/// The columns of the stream table, measured once (from the first page of `show --all`) and
/// used for every row.
public struct TableLayout: Sendable {
    let style: TableStyle
    let feedWidth: Int
    let titleWidth: Int
    let urlWidth: Int

    /// Columns for `entries` in `style`: FEED as wide as the widest feed label (at most 24 cells);
    /// TITLE as wide as the widest title, at most three fifths of what the terminal leaves after
    /// DATE, FEED (and URL with `--wide`), at least 12; SUMMARY takes the rest.
    public init(entries: [StreamEntry], style: TableStyle) {
        self.style = style
        let labels = entries.map { TerminalText.sanitized(StreamRenderer.feedsLabel($0)) }
        feedWidth = max(4, min(24, labels.map(TerminalText.cellWidth).max() ?? 4))
        let urls = entries.map { TerminalText.sanitized($0.item.url ?? "-") }
        urlWidth = style.wide ? max(3, urls.map(TerminalText.cellWidth).max() ?? 3) : 0
        let longestTitle = entries.map { TerminalText.cellWidth(TerminalText.sanitized(StreamRenderer.taggedTitle($0))) }.max() ?? 5
        let width = style.terminalWidth ?? 120
        let fixed = 10 + 2 + feedWidth + 2 + (style.wide ? urlWidth + 2 : 0) + 2
        let room = max(0, width - fixed)
        titleWidth = max(5, min(longestTitle, max(12, room * 3 / 5)))
    }

    /// The header line (no newline).
    public var header: String {
        guard style.isTerminal else {
            return (style.wide ? ["DATE", "FEED", "TITLE", "URL", "SUMMARY"] : ["DATE", "FEED", "TITLE", "SUMMARY", "URL"])
                .joined(separator: "\t")
        }
        var columns = [pad("DATE", 10), pad("FEED", feedWidth), pad("TITLE", titleWidth)]
        if style.wide { columns.append(pad("URL", urlWidth)) }
        columns.append("SUMMARY")
        return columns.joined(separator: "  ")
    }

    /// One entry's line (no newline); every remote field sanitised. Tag labels lead the title
    /// (``StreamRenderer/taggedTitle(_:)``).
    public func row(_ entry: StreamEntry) -> String {
        let item = entry.item
        let date = item.sortDate.map { String(ISO8601.string(from: $0).prefix(10)) }
        let feed = TerminalText.sanitized(StreamRenderer.feedsLabel(entry))
        let title = TerminalText.sanitized(StreamRenderer.taggedTitle(entry))
        let summary = TerminalText.sanitized(item.summary ?? "")
        let url = TerminalText.sanitized(item.url ?? "")
        guard let width = style.terminalWidth else {
            let fields = style.wide ? [date ?? "", feed, title, url, summary] : [date ?? "", feed, title, summary, url]
            return fields.joined(separator: "\t")
        }
        var columns = [pad(date ?? "-", 10), pad(feed, feedWidth), pad(title, titleWidth)]
        if style.wide {
            columns.append(pad(url.isEmpty ? "-" : url, urlWidth))
            columns.append(summary)
            return columns.joined(separator: "  ")
        }
        columns.append(summary.isEmpty ? url : summary)
        return TerminalText.truncated(columns.joined(separator: "  "), toCells: width)
    }

    private func pad(_ text: String, _ cells: Int) -> String { TerminalText.padded(text, toCells: cells) }
}
