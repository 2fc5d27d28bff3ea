import FeedCore

/// Where a feed's credential (its source type's ``CredentialSpec/parameter``, e.g. `token`) comes
/// from, said by name and never by value: what `feedagg feeds` and `validate` print.
public struct CredentialUse: Sendable, Equatable, CustomStringConvertible {
    /// The origin of the value.
    public enum Origin: Sendable, Equatable {
        /// Read from this variable because the feed sets none (e.g. `GITHUB_TOKEN`).
        case environment(String)
        /// `token: ${NAME}`: the value of these variables.
        case reference([String])
        /// `token_file: PATH`.
        case file(String)
        /// The value itself is written in feeds.yaml.
        case literal
        /// `token: ${NAME}` with `NAME` unset: the feed runs without it.
        case unset([String])
        /// `token: ${NAME}` with `NAME` empty: the feed runs without it.
        case empty([String])
        /// No credential.
        case none
    }

    /// The parameter, e.g. `token`.
    public var parameter: String
    /// Where its value comes from.
    public var origin: Origin
    /// Whether it comes from `defaults:`.
    public var inherited: Bool

    /// Creates a description.
    public init(parameter: String, origin: Origin, inherited: Bool = false) {
        self.parameter = parameter
        self.origin = origin
        self.inherited = inherited
    }

    /// Whether the feed sends a credential.
    public var isSent: Bool {
        switch origin {
        case .environment, .reference, .file, .literal: true
        case .unset, .empty, .none: false
        }
    }

    /// `token: ${GITHUB_TOKEN} (from defaults)`, `token: $GITHUB_TOKEN (environment)`,
    /// `token_file: PATH`, `token: literal in feeds.yaml`, `no token (${X} is not set)`, `no token`.
    public var description: String {
        let from = inherited ? " (from defaults)" : ""
        func references(_ names: [String]) -> String { names.map { "${\($0)}" }.joined(separator: ", ") }
        switch origin {
        case .environment(let name): return "\(parameter): $\(name) (environment)"
        case .reference(let names): return "\(parameter): \(references(names))\(from)"
        case .file(let path): return "\(parameter)_file: \(path)\(from)"
        case .literal: return "\(parameter): literal in feeds.yaml\(from)"
        case .unset(let names): return "no \(parameter) (\(references(names)) is not set)"
        case .empty(let names): return "no \(parameter) (\(references(names)) is empty)"
        case .none: return "no \(parameter)"
        }
    }
}
