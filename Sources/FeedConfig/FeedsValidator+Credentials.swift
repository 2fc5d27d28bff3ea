import FeedCore
import Foundation

extension FeedsValidator {
    /// A feed's credential as written: its description, the node it comes from, and whether the
    /// feed (and `defaults:`, where the type inherits it) leave it out altogether.
    struct FoundCredential {
        var use: CredentialUse
        var node: ConfigNode?
        var absent: Bool

        /// Whether the environment variables of `spec` may supply the credential: the feed gives
        /// none, or names one of those variables (`${GITHUB_TOKEN}`) and it is unset, so another
        /// (`GH_TOKEN`) may stand in, as `gh` accepts either.
        func fallsBackToEnvironment(_ spec: CredentialSpec) -> Bool {
            if absent { return true }
            if case .unset(let names) = use.origin { return names.allSatisfy(spec.environmentVariables.contains) }
            return false
        }
    }

    /// Where the credential of `spec` comes from in the feed mapping `item` (as written, before
    /// `token_file` is read) or, when the type inherits it, in `defaults:`.
    func credentialOrigin(_ spec: CredentialSpec, in item: ConfigNode) -> FoundCredential {
        let fileKey = spec.parameter + SecretFiles.suffix
        var sources: [(ConfigNode, Bool)] = [(item, false)]
        if spec.inheritsDefaults, let defaults = rawDefaults, defaults.entries != nil { sources.append((defaults, true)) }
        for (mapping, inherited) in sources {
            if let node = mapping[fileKey] {
                let origin: CredentialUse.Origin =
                    node.unsetVariables.isEmpty ? .file(node.scalar ?? "") : .unset(node.unsetVariables)
                return FoundCredential(
                    use: CredentialUse(parameter: spec.parameter, origin: origin, inherited: inherited), node: node,
                    absent: false)
            }
            if let node = mapping[spec.parameter] {
                let origin: CredentialUse.Origin
                if !node.unsetVariables.isEmpty {
                    origin = .unset(node.unsetVariables)
                } else if let text = node.scalar, !node.variables.isEmpty {
                    origin = text.isEmpty ? .empty(node.variables) : .reference(node.variables)
                } else if node.isNull || node.scalar?.isEmpty != false {
                    origin = .none
                } else {
                    origin = .literal
                }
                return FoundCredential(
                    use: CredentialUse(parameter: spec.parameter, origin: origin, inherited: inherited), node: node,
                    absent: false)
            }
        }
        return FoundCredential(use: CredentialUse(parameter: spec.parameter, origin: .none), node: nil, absent: true)
    }

    /// The first set, non-empty variable of `spec` when the feed's base URL is one of its hosts.
    func environmentCredential(
        _ spec: CredentialSpec, parameters: FeedParameters, descriptor: SourceDescriptor
    ) -> (variable: String, value: String)? {
        let base = (try? parameters.url("base_url")) ?? URL(string: descriptor.defaultBaseURL)
        guard let host = base?.host?.lowercased(), spec.environmentHosts.contains(host) else { return nil }
        for variable in spec.environmentVariables {
            if let value = environment[variable]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty {
                return (variable, value)
            }
        }
        return nil
    }

    /// `mapping` with `key: value` set (a quoted scalar at the mapping's own location), replacing
    /// an entry of that key (an unset `${VAR}`).
    static func adding(_ key: String, value: String, to mapping: ConfigNode) -> ConfigNode {
        guard case .mapping(var entries) = mapping.value else { return mapping }
        entries.removeAll { $0.key.scalar == key }
        entries.append(
            (ConfigNode(.scalar(key, plain: true), at: mapping.location),
             ConfigNode(.scalar(value, plain: false), at: mapping.location)))
        return ConfigNode(.mapping(entries), at: mapping.location, unsetVariables: mapping.unsetVariables)
    }

    /// Warns about an empty `${VAR}` credential and one written in the file (an unset one is
    /// warned about with the other unset parameters).
    mutating func noteCredential(_ found: FoundCredential, feed: String) {
        guard let node = found.node else { return }
        switch found.use.origin {
        case .empty:
            noteUnset(node, feed: feed, key: found.use.parameter, credential: true, empty: true)
        case .literal:
            let parameter = found.use.parameter
            if warnings.contains(where: {
                $0.credential && $0.location.line == node.location.line && $0.location.column == node.location.column
            }) {
                return
            }
            warnings.append(
                PendingWarning(
                    location: node.location,
                    text: "'\(parameter)' is written in the file itself: store it in an environment variable "
                        + "(\(parameter): ${NAME}) or in a \(parameter)\(SecretFiles.suffix) only you can read",
                    credential: true))
        default:
            break
        }
    }
}
