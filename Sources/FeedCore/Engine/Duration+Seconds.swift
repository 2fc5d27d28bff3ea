extension Duration {
    /// The duration in seconds, as a `Double` (attosecond precision is lost beyond what a `Double`
    /// holds): the one conversion for log lines, summaries, curl and `poll(2)` timeouts.
    public var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }

    /// A duration of `seconds`, rounded up to the millisecond.
    static func rounded(seconds: Double) -> Duration { .milliseconds(Int((max(0, seconds) * 1000).rounded(.up))) }
}
