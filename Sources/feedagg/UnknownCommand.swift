import FeedCore

/// A first argument that names no command: `feedagg shwo` is answered with a did-you-mean
/// instead of the usage of `pull`, the default command.
struct UnknownCommand: CustomStringConvertible {
    /// The word as typed.
    let word: String
    /// The nearest command name, when one is a plausible typo away.
    let suggestion: String?
    /// Every command name, for the note.
    let commands: [String]

    /// The unknown command `arguments` start with, or `nil` when they start with an option (which
    /// `pull`, the default command, parses), a command name, or nothing.
    static func check(_ arguments: [String], commands: [String]) -> UnknownCommand? {
        guard let first = arguments.first, !first.hasPrefix("-"), !first.isEmpty else { return nil }
        let known = commands + ["help"]
        guard !known.contains(first) else { return nil }
        return UnknownCommand(word: first, suggestion: Suggestion.closest(to: first, in: known), commands: commands)
    }

    /// `error: unknown command 'shwo'; did you mean 'show'?`, then the list of commands.
    var description: String {
        // The word is echoed: control characters (escape sequences) are left out.
        let shown = String(String.UnicodeScalarView(word.unicodeScalars.filter { $0.properties.generalCategory != .control }))
        var first = "error: unknown command '\(shown)'"
        if let suggestion { first += "; did you mean '\(suggestion)'?" }
        return first + "\n  commands: \(commands.joined(separator: ", ")) (see 'feedagg --help')"
    }
}
