import Foundation

/// The options that reproduce one listing of the stream, to print `feedagg show --after CURSOR …`
/// as the next step under a page: a command that works as printed (pasted into a shell, it shows
/// the next page of the same listing, from the same store and configuration).
public struct ShowCommandLine: Sendable, Equatable {
    /// `--config` as given, `nil` when the default was used.
    public var config: String?
    /// `--db` (the store), `nil` for the default store.
    public var db: String?
    /// `--feed` values.
    public var feeds: [String] = []
    /// `--source` values.
    public var sources: [String] = []
    /// `--per-page`, `nil` for the default.
    public var perPage: Int?
    /// `--wide`.
    public var wide = false
    /// `--view` (a saved view's name), `nil` for none.
    public var view: String?
    /// `--query` as given, `nil` for none.
    public var query: String?

    /// Creates a command line.
    public init(
        config: String? = nil, db: String? = nil, feeds: [String] = [], sources: [String] = [], perPage: Int? = nil,
        wide: Bool = false, view: String? = nil, query: String? = nil
    ) {
        self.view = view
        self.query = query
        self.config = config
        self.db = db
        self.feeds = feeds
        self.sources = sources
        self.perPage = perPage
        self.wide = wide
    }

    /// The arguments after `feedagg`, for the entries after `cursor`.
    public func arguments(after cursor: String) -> [String] {
        var arguments = ["show", "--after", cursor]
        if let config { arguments += ["--config", config] }
        if let db { arguments += ["--db", db] }
        for feed in feeds { arguments += ["--feed", feed] }
        for source in sources { arguments += ["--source", source] }
        if let view { arguments += ["--view", view] }
        if let query { arguments.append("--query=" + query) }
        if let perPage { arguments += ["--per-page", String(perPage)] }
        if wide { arguments.append("--wide") }
        return arguments
    }

    /// `feedagg show --after CURSOR …`, each argument quoted for a POSIX shell when needed.
    public func command(after cursor: String) -> String {
        (["feedagg"] + arguments(after: cursor)).map(Self.shellQuoted).joined(separator: " ")
    }

    /// `argument` as one word of a POSIX shell: as is when it holds only safe characters, else in
    /// single quotes (a `'` inside written `'\''`). Control characters are sanitised first, so the
    /// line stays printable; such an argument may then not round-trip (it could not be typed either).
    public static func shellQuoted(_ argument: String) -> String {
        let safe = TerminalText.sanitized(argument)
        let plain = !safe.isEmpty && safe.unicodeScalars.allSatisfy { scalar in
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", "-", "_", ".", "/", ":", "=", "@", "%", "+", ",": true
            default: false
            }
        }
        return plain ? safe : "'" + safe.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
