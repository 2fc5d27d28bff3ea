public import FeedCore
public import Foundation

/// `exec`: a source written in any language — an executable that speaks the JSON-lines protocol
/// (``ExecLines``) on its standard input and output.
///
/// ```yaml
/// - name: hn
///   source: exec
///   command: [./plugins/hn.py, --front-page]   # no shell: path and arguments as written
///   env: { HN_TOKEN: "${HN_TOKEN}" }           # the plugin's whole environment
///   timeout: 20                                # seconds per page (default 30)
///   params: { query: swift }                   # handed to the plugin as "params"
/// ```
///
/// For each page feedagg writes one request line on the plugin's standard input —
/// `{"feed", "page", "per_page", "cursor", "params", "etag", "last_modified"}` — and reads its
/// answer on standard output. ``ExecTransport`` runs it (in the feed file's directory, with only
/// the `env:` variables); the engine keeps scheduling, retries, conditional requests, the store
/// and merging.
public struct ExecSource: FeedSource {
    /// The source type's static facts.
    public static let descriptor = SourceDescriptor(
        typeName: "exec",
        summary: "a plugin executable in any language, speaking JSON lines on stdin/stdout (docs/sources-exec.md)",
        parameters: [
            ParameterSpec(
                "command", .list, required: true,
                "[path, argument…]: the plugin and its arguments, run without a shell (a relative path is from the feed file's folder)"),
            ParameterSpec("env", .mapping, "NAME: value: the plugin's whole environment (${VAR} and secrets as anywhere)"),
            ParameterSpec(
                "timeout", .integer, default: "30", "seconds one page may take before the plugin is killed (1–3600)"),
            ParameterSpec(
                "max_output_bytes", .integer, default: "16777216",
                "most bytes of output for one page before the plugin is killed (16777216 is 16 MiB)"),
            ParameterSpec("params", .mapping, "anything: handed to the plugin as the request's \"params\" object"),
        ],
        pagination: "cursor: the plugin prints {\"next\": \"…\"}; feedagg sends it back as \"cursor\" with the next page",
        // Exec feeds' endpoints live under this origin unless `base_url` is set; no request ever
        // leaves for it: ``ExecTransport`` answers them.
        defaultBaseURL: "https://exec.feedagg.invalid",
        defaultPageSize: 30,
        maxPageSize: 10_000,
        // Commented out: it runs a plugin the user writes first (a starter must work as written).
        example: [
            "  # Uncomment once ./plugins/notes_dir.sh exists (Examples/plugins/notes_dir.sh in feedagg's",
            "  # sources is one): no shell, and the plugin's environment is only env:.",
            "  # - name: my-notes",
            "  #   source: exec",
            "  #   command: [./plugins/notes_dir.sh, ./notes]",
            "  #   env: { PATH: /usr/bin:/bin }",
            "  #   timeout: 20",
        ])

    /// The feed's endpoint, answered by ``ExecTransport``.
    public let firstPageURL: URL
    /// How to run the plugin.
    public let plugin: ExecPlugin
    /// Where `command` is written, for ``setupWarnings()``.
    let commandLocation: SourceLocation
    /// The `env:` entries whose `${VAR}`s are unset: the name, the variables and where it is written.
    let unsetEnvironment: [(name: String, variables: [String], location: SourceLocation)]

    /// Reads the command, environment, limits and parameters; each problem is a located ``ConfigError``.
    public init(feed: FeedContext, parameters: FeedParameters) throws {
        guard let words = try parameters.list("command"), let first = words.first else {
            throw ConfigError(
                parameters.value("command") == nil
                    ? "feed '\(feed.name)' is missing required parameter 'command'"
                    : "'command' must name the plugin: [path, argument…]",
                at: parameters.value("command")?.location ?? parameters.node.location,
                notes: ["e.g. command: [./plugins/hn.py, --pages, \"3\"] (no shell: arguments are never split)"])
        }
        let command = words.map(\.text)
        guard !command[0].isEmpty else { throw ConfigError("the plugin path must not be empty", at: first.node.location) }

        var environment: [String: String] = [:]
        var unset: [(name: String, variables: [String], location: SourceLocation)] = []
        if let env = try parameters.mapping("env"), let entries = env.entries {
            for (key, value) in entries {
                guard let name = key.scalar, !name.isEmpty, !name.contains("="), let text = value.scalar else {
                    throw ConfigError("'env' entries must be NAME: value", at: key.location)
                }
                environment[name] = text
                if !value.unsetVariables.isEmpty { unset.append((name, value.unsetVariables, value.location)) }
            }
        }
        unsetEnvironment = unset
        commandLocation = first.node.location
        let timeout = try parameters.integer("timeout", in: 1...3600) ?? 30
        let maxOutput = try parameters.integer("max_output_bytes", in: 1024...(256 << 20)) ?? (16 << 20)
        let params = try parameters.mapping("params").map(Self.json) ?? .object([])

        var file = URL(fileURLWithPath: parameters.node.location.file.path)
        if !file.path.hasPrefix("/") {
            file = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(file.path)
        }
        plugin = ExecPlugin(
            feedName: feed.name, command: command, environment: environment,
            directory: file.deletingLastPathComponent().standardizedFileURL.path, timeout: .seconds(timeout),
            maxOutputBytes: maxOutput, parameters: params, pageSize: feed.pageSize)
        firstPageURL = feed.endpoint("/exec/" + QueryEncoding.encode(feed.name))
    }

    /// A YAML node as JSON: scalars as strings, sequences as arrays, mappings as objects.
    static func json(_ node: ConfigNode) -> JSONValue {
        switch node.value {
        case .scalar(let text, _): .string(text)
        case .sequence(let nodes): .array(nodes.map(json))
        case .mapping(let entries): .object(entries.map { .init($0.key.scalar ?? "", json($0.value)) })
        }
    }

    /// `runs plugin ./hn.py --front-page, cursor pagination, 30 per page`: no placeholder URL.
    public func validationSummary(context: FeedContext) -> String? {
        "runs plugin \(plugin.commandDescription), cursor pagination, \(context.pageSize) per page"
    }

    /// A plugin that is not there or cannot be run, and `env:` values whose variables are unset:
    /// `validate` says so (a pull would fail the feed, or run the plugin with an empty value).
    public func setupWarnings() -> [SetupWarning] {
        var warnings: [SetupWarning] = []
        let path = plugin.executablePath
        let program = plugin.command.first ?? ""
        if !path.hasPrefix("/") {
            warnings.append(
                SetupWarning(
                    at: commandLocation,
                    "feed '\(plugin.feedName)': plugin '\(program)' is not found in the plugin's PATH "
                        + "(env: PATH, else /usr/local/bin:/usr/bin:/bin)"))
        } else if !FileManager.default.fileExists(atPath: path) {
            warnings.append(
                SetupWarning(
                    at: commandLocation,
                    "feed '\(plugin.feedName)': plugin '\(program)' does not exist (looked for \(path))"))
        } else if !FileManager.default.isExecutableFile(atPath: path) {
            warnings.append(
                SetupWarning(
                    at: commandLocation,
                    "feed '\(plugin.feedName)': plugin '\(program)' is not executable (chmod +x \(path))"))
        }
        for entry in unsetEnvironment {
            let names = entry.variables.joined(separator: ", ")
            warnings.append(
                SetupWarning(
                    at: entry.location,
                    "environment variable\(entry.variables.count == 1 ? "" : "s") \(names) "
                        + "\(entry.variables.count == 1 ? "is" : "are") unset; the plugin of feed '\(plugin.feedName)' "
                        + "gets \(entry.name) empty"))
        }
        return warnings
    }

    /// `plugin ./hn.py --front-page`, and `, cursor 'c2'` on a later page: errors name the plugin,
    /// not the placeholder endpoint (`https://exec.feedagg.invalid/exec/NAME`) no request leaves for.
    /// The cursor came from the plugin's output: its secrets are redacted, and it is cut at 60
    /// characters.
    public func requestDescription(for url: URL) -> String? {
        var text = "plugin " + plugin.commandDescription
        let query = URLComponents(url: url, resolvingAgainstBaseURL: true)?.queryItems ?? []
        if let cursor = query.last(where: { $0.name == "cursor" })?.value {
            let clean = String(String.UnicodeScalarView(cursor.unicodeScalars.filter { $0.properties.generalCategory != .control }))
            text += ", cursor '\(plugin.secrets.redact(clean, cutAt: 60))'"
        }
        return text
    }

    /// Cursor paging through the plugin's `next` lines.
    /// Each later page is the endpoint with the `cursor` the previous page's `{"next": …}` line
    /// named (the engine compares URLs, so the URL holds the cursor and nothing else); no `next`
    /// line ends the walk; a cursor handed back twice is the engine's pagination-cycle error.
    public var pagination: any PaginationStrategy { CursorPagination(cursorParameter: "cursor") }

    /// Decodes the plugin's JSON lines (the plugin's secrets redacted from any line an error quotes).
    public func decodePage(_ page: FetchedPage) throws -> DecodedPage {
        try ExecLines.decode(page.response.body, feedName: plugin.feedName, secrets: plugin.secrets)
    }
}
