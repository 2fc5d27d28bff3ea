import FeedaggKit
import Foundation

/// Shell completion of `--feed`: the names of the feeds the command line's configuration declares.
enum FeedNameCompletion {
    /// The feed names declared by the configuration `words` name (`--config FILE`, `-c FILE`,
    /// `--config=FILE`, else `$FEEDAGG_CONFIG`, else `./feeds.yaml`) that start with `prefix`.
    ///
    /// Runs while the user presses TAB: a missing or broken configuration completes nothing and
    /// prints nothing.
    @Sendable
    static func candidates(_ words: [String], _ index: Int, _ prefix: String) -> [String] {
        let environment = ProcessInfo.processInfo.environment
        let path = configPath(in: words, before: index) ?? environment["FEEDAGG_CONFIG"] ?? "feeds.yaml"
        guard let declared = try? Aggregator(environment: environment).declaredFeeds(configPath: path) else {
            return []
        }
        return declared.map(\.name).filter { $0.hasPrefix(prefix) }
    }

    /// The value of the last `--config`/`-c` among `words` (before the word being completed).
    static func configPath(in words: [String], before index: Int) -> String? {
        var path: String?
        var position = 0
        while position < min(index, words.count) {
            let word = words[position]
            if word == "--config" || word == "-c", position + 1 < index, position + 1 < words.count {
                path = words[position + 1]
                position += 2
                continue
            }
            if word.hasPrefix("--config=") { path = String(word.dropFirst("--config=".count)) }
            position += 1
        }
        return path.map(unquoted)
    }

    /// A shell word without surrounding quotes, with a leading `~/` expanded.
    static func unquoted(_ word: String) -> String {
        var text = word
        if text.count >= 2, let first = text.first, first == "'" || first == "\"", text.last == first {
            text = String(text.dropFirst().dropLast())
        }
        if text.hasPrefix("~/"), let home = ProcessInfo.processInfo.environment["HOME"] {
            text = home + text.dropFirst()
        }
        return text
    }
}
