import FeedCore
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The commented feeds.yaml `feedagg init` writes: one feed per source type of the registry,
/// GitHub tokens from `${GITHUB_TOKEN}`, valid as written.
public enum StarterConfig {
    /// The starter file's text for the source types of `registry`, in registry order.
    public static func text(for registry: SourceRegistry = .builtIn) -> String {
        var lines = [
            "# feedagg feeds. `feedagg validate` checks this file, `feedagg pull` fetches every feed,",
            "# `feedagg show` prints the merged stream, `feedagg sources` lists every source type and key.",
            "",
            "settings:",
            "  rate_limit_wait: 60            # seconds a feed may wait for a rate limit to lift",
            "",
            "defaults:",
            "  # GitHub feeds send this token; unset means unauthenticated (60 requests an hour).",
            "  # Never write a token itself here: keep it in the environment or in a token_file.",
            "  token: ${GITHUB_TOKEN}",
            "",
            "feeds:",
        ]
        for descriptor in registry.descriptors {
            lines.append(contentsOf: example(for: descriptor))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The example feed for one source type: a known one, or a commented-out skeleton naming the
    /// type's required parameters (a new source module's type, until someone writes its example).
    static func example(for descriptor: SourceDescriptor) -> [String] {
        let header = "  # \(descriptor.typeName): \(descriptor.summary)"
        switch descriptor.typeName {
        case "github.repos":
            return [
                header,
                "  - name: swift-repos",
                "    source: github.repos",
                "    org: swiftlang                 # or user: NAME",
                "    sort: updated                  # newest first: later pulls stop at stored items",
                "    per_page: 30",
                "",
            ]
        case "github.members":
            return [header, "  - name: swift-members", "    source: github.members", "    org: swiftlang", ""]
        case "github.gists":
            return [
                header,
                "  - name: my-gists",
                "    source: github.gists",
                "    user: octocat                  # leave out for everyone's public gists",
                "    max_pages: 2",
                "",
            ]
        case "github.stargazers":
            return [
                header, "  - name: argument-parser-stars", "    source: github.stargazers", "    owner: apple",
                "    repo: swift-argument-parser", "    max_pages: 3", "",
            ]
        case "photos.500px":
            return [
                header,
                "  - name: editors-photos",
                "    source: photos.500px",
                "    feature: editors",
                "    consumer_key: ${PX_CONSUMER_KEY}   # your 500px key, from the environment",
                "    max_pages: 2",
                "",
            ]
        case "http":
            return [
                header,
                "  # Any JSON API, declared: a URI template, a pagination style, where the items are.",
                "  - name: swift-tags",
                "    source: http",
                "    base_url: https://api.github.com",
                "    url: \"{+base_url}/repos/swiftlang/swift/tags{?per_page}\"",
                "    per_page: 30",
                "    max_pages: 1",
                "    pagination: { style: link }",
                "    items: \"$\"",
                "    fields: { id: \"$.name\", title: \"$.name\", url: \"$.zipball_url\" }",
                "",
            ]
        case "feed":
            return [
                header,
                "  # An RSS, Atom or JSON Feed document: the format is read from the body.",
                "  - name: swift-releases",
                "    source: feed",
                "    url: https://github.com/swiftlang/swift/releases.atom",
                "",
            ]
        case "exec":
            return [
                header,
                "  # A plugin in any language (docs/sources-exec.md): no shell, only the env: variables.",
                "  - name: my-notes",
                "    source: exec",
                "    command: [./plugins/notes_dir.sh, ./notes]",
                "    env: { PATH: /usr/bin:/bin }",
                "    timeout: 20",
                "",
            ]
        default:
            var lines = [header, "  # - name: my-\(descriptor.typeName.replacingOccurrences(of: ".", with: "-"))",
                "  #   source: \(descriptor.typeName)"]
            for parameter in descriptor.parameters where parameter.required {
                lines.append("  #   \(parameter.name): …              # \(parameter.summary)")
            }
            return lines + [""]
        }
    }

    /// Writes the starter file at `path`, never over an existing file (checked and created in one
    /// step); returns the number of feeds it declares.
    ///
    /// - Throws: ``ConfigError`` when `path` exists or cannot be written.
    @discardableResult
    public static func create(at path: String, registry: SourceRegistry = .builtIn) throws -> Int {
        let text = self.text(for: registry)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            let code = errno
            if code == EEXIST {
                throw ConfigError(
                    "\(path) already exists: not overwriting it", at: nil,
                    notes: ["help: edit it, remove it first, or write another file with `feedagg init PATH`"])
            }
            throw ConfigError("cannot create \(path): \(String(cString: strerror(code)))", at: nil)
        }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw ConfigError("cannot write \(path): \(String(cString: strerror(errno)))", at: nil)
            }
            written += count
        }
        return registry.descriptors.filter { knownExamples.contains($0.typeName) }.count
    }

    /// Source types with a written example (others get a commented-out skeleton).
    static let knownExamples: Set<String> = [
        "github.repos", "github.members", "github.gists", "github.stargazers", "photos.500px", "http", "feed", "exec",
    ]
}
