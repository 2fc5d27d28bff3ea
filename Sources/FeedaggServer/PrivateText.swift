import FeedCore
import Foundation

/// What the server removes from text it serves that a pull wrote (a feed's last error, the
/// refresh status): the machine's file paths and the secrets of the running configuration.
///
/// Errors are written for the person at the machine (`feedagg feeds` shows them whole); over HTTP
/// they go to anyone who can reach the port, so:
/// - the configuration file, its folder, the store and the home folder are named, not shown
///   (`feeds.yaml`, `the configuration's folder`, `the store`, `~`), and any other absolute path
///   becomes `<path>`;
/// - every credential the feeds send (their credential headers' values and the secret query values
///   of their URLs) and the store's password become `REDACTED`;
/// - URLs lose user-info and secret query values (``Redaction/shownText(_:)``).
struct PrivateText: Sendable {
    /// Known paths and what replaces each, longest first (a folder after the files in it).
    let paths: [(path: String, name: String)]
    /// Secret values, longest first.
    let secrets: [String]

    /// The scrubber for `configuration`, served from `configPath` with its store at `storePath`.
    init(configuration: ServedConfiguration, configPath: String, storePath: String?, storePassword: String?) {
        var paths: [(String, String)] = []
        let config = URL(fileURLWithPath: configPath).standardizedFileURL
        paths.append((config.path, "feeds.yaml"))
        paths.append((config.resolvingSymlinksInPath().path, "feeds.yaml"))
        paths.append((config.deletingLastPathComponent().path, "the configuration's folder"))
        if let storePath, storePath.hasPrefix("/") {
            paths.append((storePath, "the store"))
            paths.append((URL(fileURLWithPath: storePath).deletingLastPathComponent().path, "the store's folder"))
        }
        if let home = ProcessInfo.processInfo.environment["HOME"], home.count > 1 { paths.append((home, "~")) }
        self.paths = paths.filter { $0.0.count > 1 }.sorted { $0.0.count > $1.0.count }
        var secrets: [String] = storePassword.map { [$0] } ?? []
        for feed in configuration.feeds {
            for field in feed.source.credentialHeaders {
                secrets.append(field.value)
                if let space = field.value.lastIndex(of: " ") {
                    secrets.append(String(field.value[field.value.index(after: space)...]))
                }
            }
            let items = URLComponents(url: feed.source.firstPageURL, resolvingAgainstBaseURL: true)?.queryItems ?? []
            for item in items where Redaction.isShownSecret(parameter: item.name) {
                if let value = item.value { secrets.append(value) }
            }
        }
        self.secrets = Array(Set(secrets.filter { $0.count >= 4 })).sorted { $0.count > $1.count }
    }

    /// `text` as it may be served.
    func scrubbed(_ text: String) -> String {
        var out = text
        for secret in secrets where out.contains(secret) { out = out.replacingOccurrences(of: secret, with: "REDACTED") }
        out = Redaction.shownText(out)
        for (path, name) in paths where out.contains(path) { out = out.replacingOccurrences(of: path, with: name) }
        return Self.maskingAbsolutePaths(out)
    }

    /// `text` with every absolute file path (a `/` at the start or after white space, a quote, `(`,
    /// `=` or `:` followed by a space, then at least one more `/`) replaced by `<path>`. URLs are
    /// untouched (their paths follow a host name).
    static func maskingAbsolutePaths(_ text: String) -> String {
        guard text.contains("/") else { return text }
        var out = ""
        var characters = Array(text)
        var index = 0
        let boundary: Set<Character> = [" ", "\t", "\n", "'", "\"", "(", "=", "`", "["]
        while index < characters.count {
            let character = characters[index]
            let atBoundary = index == 0 || boundary.contains(characters[index - 1])
            if character == "/", atBoundary, index + 1 < characters.count, characters[index + 1] != "/" {
                var end = index + 1
                var slashes = 1
                while end < characters.count, !characters[end].isWhitespace, !"'\"`)],;".contains(characters[end]) {
                    if characters[end] == "/" { slashes += 1 }
                    end += 1
                }
                if slashes >= 2 {
                    out += "<path>"
                    index = end
                    continue
                }
            }
            out.append(character)
            index += 1
        }
        characters.removeAll()
        return out
    }
}
