import FeedCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where `table` output goes, which decides its shape.
///
/// On a terminal: aligned columns measured in terminal cells, the title column growing with the
/// terminal, each line cut to the terminal's width, the footer (page, next command) on standard
/// output. Anywhere else (a pipe, a file): one untruncated tab-separated row per entry after a
/// header row, and the footer on standard error, so `feedagg show | grep WORD` finds any text.
public struct TableStyle: Sendable, Equatable {
    /// The terminal's width in cells; `nil` when standard output is not a terminal.
    public var terminalWidth: Int?
    /// `--wide`: a URL column, printed whole (lines are then not cut to the terminal's width).
    public var wide: Bool

    /// A style for a terminal `width` cells wide, or (`nil`) for a pipe.
    public init(terminalWidth: Int?, wide: Bool = false) {
        self.terminalWidth = terminalWidth
        self.wide = wide
    }

    /// For the process's standard output: a terminal (its width, 120 when unknown) or not.
    public static func standardOutput(wide: Bool = false) -> TableStyle {
        guard isatty(1) == 1 else { return TableStyle(terminalWidth: nil, wide: wide) }
        var size = winsize()
        let width = ioctl(1, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 20 ? Int(size.ws_col) : 120
        return TableStyle(terminalWidth: width, wide: wide)
    }

    /// Whether the output is a terminal.
    public var isTerminal: Bool { terminalWidth != nil }
}
