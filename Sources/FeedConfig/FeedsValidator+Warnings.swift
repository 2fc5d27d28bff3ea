import FeedCore

// Warnings of a feeds.yaml: problems that do not stop a run, merged per location and rendered in
// file order; those about credentials are marked, for `pull` prints them even without --verbose.
extension FeedsValidator {
    struct PendingWarning {
        var location: SourceLocation
        var text: String
        var variables: [String] = []
        var key = ""
        var feeds: [String] = []
        /// About a credential: `pull` prints it even without `--verbose`.
        var credential = false
        /// The variables are set but empty (rather than unset).
        var empty = false
    }

    mutating func noteUnset(_ node: ConfigNode, feed: String, key: String, credential: Bool = false, empty: Bool = false) {
        if let index = warnings.firstIndex(where: {
            $0.key == key && $0.location.line == node.location.line && $0.location.column == node.location.column
        }) {
            warnings[index].feeds.append(feed)
        } else {
            warnings.append(
                PendingWarning(
                    location: node.location, text: "", variables: empty ? node.variables : node.unsetVariables,
                    key: key, feeds: [feed], credential: credential, empty: empty))
        }
    }

    /// Rendered warnings, in file order; only the credential ones with `credentialOnly`.
    func renderedWarnings(credentialOnly: Bool = false) -> [String] {
        warnings.enumerated()
            .filter { !credentialOnly || $0.element.credential }
            .sorted {
                ($0.element.location.line, $0.element.location.column, $0.offset)
                    < ($1.element.location.line, $1.element.location.column, $1.offset)
            }
            .map { _, warning in
                var text = warning.text
                if !warning.feeds.isEmpty {
                    let who =
                        warning.feeds.count == 1
                        ? "feed '\(warning.feeds[0])' runs"
                        : "feeds " + warning.feeds.map { "'\($0)'" }.joined(separator: ", ") + " run"
                    let phrase =
                        warning.empty
                        ? "environment variable\(warning.variables.count == 1 ? "" : "s") "
                            + warning.variables.joined(separator: ", ") + " \(warning.variables.count == 1 ? "is" : "are") empty"
                        : Self.unsetPhrase(warning.variables)
                    text = "\(phrase); \(who) without '\(warning.key)'"
                    if warning.credential && !warning.empty {
                        let names = environment.keys.sorted()
                        let suggestions = warning.variables.compactMap { variable in
                            Suggestion.closest(to: variable, in: names).map { "$\($0)" }
                        }
                        if !suggestions.isEmpty { text += " (did you mean \(suggestions.joined(separator: ", "))?)" }
                    }
                }
                return "\(warning.location): warning: \(text)"
            }
    }
}
