import FeedCore
import FeedStore
import Foundation

extension PullReport {
    /// What `pull` prints: the `--limit` items, else the requested page of the stored stream, whose
    /// footer's next command is built from `next`. Atom and JSON Feed documents are named after
    /// ``streamFeeds`` (the stream printed is always every declared feed's).
    public func rendered(
        _ format: OutputFormat, style: TableStyle = TableStyle(terminalWidth: 120), next: ShowCommandLine? = ShowCommandLine()
    ) -> RenderedOutput {
        let identity = FeedIdentity(feeds: streamFeeds)
        return newest?.rendered(format, style: style, identity: identity)
            ?? page.rendered(format, style: style, next: next, identity: identity)
    }
}
