import FeedCore

/// What a command prints: the body on standard output, and footer lines that go to standard
/// output on a terminal and to standard error otherwise (see ``TableStyle``).
public struct RenderedOutput: Sendable, Equatable {
    /// Standard output.
    public var body: String
    /// Lines about the output (page x/y, the next command), without newlines.
    public var footer: [String]

    /// Creates output.
    public init(body: String, footer: [String] = []) {
        self.body = body
        self.footer = footer
    }
}
