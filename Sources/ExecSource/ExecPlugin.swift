public import FeedCore
public import Foundation

/// What it takes to run one feed's plugin: the command, its environment and directory, limits,
/// and the parameters handed to it. Built by ``ExecSource`` from feeds.yaml; run by ``ExecRunner``.
public struct ExecPlugin: Sendable {
    /// The feed's name.
    public var feedName: String
    /// The executable (a path; relative paths are resolved against ``directory``) and its
    /// arguments, passed as they are: no shell, never re-split.
    public var command: [String]
    /// The whole environment of the plugin: only the variables named in `env:`.
    public var environment: [String: String]
    /// The working directory: the feed file's directory.
    public var directory: String
    /// Longest time one page may take; the plugin is killed after it.
    public var timeout: Duration
    /// Most bytes accepted on standard output for one page; the plugin is killed past it.
    public var maxOutputBytes: Int
    /// Most bytes of standard error kept.
    public var maxErrorBytes: Int = 64 << 10
    /// The feed's `params:` mapping, handed to the plugin.
    public var parameters: JSONValue
    /// The feed's page size.
    public var pageSize: Int

    /// Creates a plugin description.
    public init(
        feedName: String, command: [String], environment: [String: String], directory: String, timeout: Duration,
        maxOutputBytes: Int, parameters: JSONValue, pageSize: Int
    ) {
        self.feedName = feedName
        self.command = command
        self.environment = environment
        self.directory = directory
        self.timeout = timeout
        self.maxOutputBytes = maxOutputBytes
        self.parameters = parameters
        self.pageSize = pageSize
    }

    /// The executable's absolute path: a path with a `/` is taken from ``directory``; a bare name
    /// is looked up in the plugin's own `PATH` (from `env:`), else in `/usr/local/bin:/usr/bin:/bin`
    /// — never in feedagg's `PATH`, and never through a shell.
    public var executablePath: String {
        let program = command.first ?? ""
        if program.hasPrefix("/") { return program }
        if program.contains("/") {
            return URL(fileURLWithPath: directory).appendingPathComponent(program).standardizedFileURL.path
        }
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for folder in path.split(separator: ":") where folder.hasPrefix("/") {
            let candidate = "\(folder)/\(program)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return program
    }

    /// The request line written to the plugin's standard input (one JSON object and a newline):
    /// `{"feed", "page", "per_page", "cursor", "params", "etag", "last_modified"}`.
    /// `page` is 1 on the first request and `nil` (null) on the cursor pages that follow.
    public func request(page: Int?, cursor: String?, etag: String?, lastModified: String?) -> Data {
        func text(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }
        let object: JSONValue = .object([
            .init("feed", .string(feedName)),
            .init("page", page.map { .number(String($0)) } ?? .null),
            .init("per_page", .number(String(pageSize))),
            .init("cursor", text(cursor)),
            .init("params", parameters),
            .init("etag", text(etag)),
            .init("last_modified", text(lastModified)),
        ])
        return object.serialized + Data([0x0A])
    }

    /// The secrets the plugin is given (its environment's values), to redact from what it prints.
    public var secrets: PluginSecrets { PluginSecrets(environment) }

    /// `text` with control characters other than newlines and tabs removed, then every environment
    /// value of 4 or more characters replaced by `REDACTED` (stderr shown to a user). Removing the
    /// control characters first means none can hide a secret from the redaction.
    public func sanitized(_ text: String) -> String {
        let clean = String(
            String.UnicodeScalarView(
                text.unicodeScalars.filter { $0 == "\n" || $0 == "\t" || $0.properties.generalCategory != .control }))
        return secrets.redact(clean)
    }

    /// The command as messages name it: `./hn.py --front-page` (a word with white space quoted,
    /// control characters removed, secrets redacted, at most 120 characters).
    public var commandDescription: String {
        let words = command.map { word in
            word.isEmpty || word.contains(where: \.isWhitespace) ? "'\(word)'" : word
        }
        let clean = String(
            String.UnicodeScalarView(words.joined(separator: " ").unicodeScalars.filter { $0.properties.generalCategory != .control }))
        return secrets.redact(clean, cutAt: 120)
    }
}
