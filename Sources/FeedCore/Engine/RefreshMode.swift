/// How much of a feed a pull re-reads when a ``PullMemory`` remembers an earlier pull.
public enum RefreshMode: Sendable, Equatable {
    /// Page 1 answering `304 Not Modified` ends the feed's pull (unchanged); a date-ordered feed
    /// stops after a page holding only items stored unchanged; a `since` filter is sent where the
    /// source offers one.
    case incremental
    /// Every page is walked from page 1 (conditional requests are still sent, and a `304` is
    /// served from the remembered body); no watermark, no early stop.
    case full
}
