import FeedCore
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The commented feeds.yaml `feedagg init` writes: each source type of the registry with the
/// example its module gives (``SourceDescriptor/example``), GitHub tokens from `${GITHUB_TOKEN}`;
/// valid and working as written (an example that needs something of the user's is commented out).
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

    /// The lines of one source type: a `# type: summary` comment, then the type's own example
    /// (``SourceDescriptor/example``), or a commented-out skeleton naming the type's required
    /// parameters when it has none.
    static func example(for descriptor: SourceDescriptor) -> [String] {
        let header = "  # \(descriptor.typeName): \(descriptor.summary)"
        if let example = descriptor.example { return [header] + example + [""] }
        var lines = [
            header, "  # - name: my-\(descriptor.typeName.replacingOccurrences(of: ".", with: "-"))",
            "  #   source: \(descriptor.typeName)",
        ]
        for parameter in descriptor.parameters where parameter.required {
            lines.append("  #   \(parameter.name): …              # \(parameter.summary)")
        }
        return lines + [""]
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
        return feedCount(registry)
    }

    /// How many feeds the starter declares as written: the types whose example is not commented out.
    public static func feedCount(_ registry: SourceRegistry = .builtIn) -> Int {
        registry.descriptors.count - commentedTypes(registry).count
    }

    /// The source types whose example the starter writes commented out, in registry order.
    public static func commentedTypes(_ registry: SourceRegistry = .builtIn) -> [String] {
        registry.descriptors.filter { !$0.exampleDeclaresFeed }.map(\.typeName)
    }
}
