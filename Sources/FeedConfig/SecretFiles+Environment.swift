import FeedCore
import Foundation

extension SecretFiles {
    /// A feed's `env:` mapping (an `exec` plugin's environment) with each `NAME_file: PATH` entry
    /// replaced by `NAME: <the file's text>`, under the same rules as `token_file` (a regular file
    /// only its owner can read or write, at most ``maximumSize`` bytes, relative to the feeds
    /// file's folder, `~/` for `$HOME`, surrounding whitespace trimmed, never quoted in a message;
    /// an `X_file` that is an unset `${VAR}` is dropped). Setting both `NAME` and `NAME_file` is
    /// an error. `item` is returned unchanged when it has no `env:` mapping or no `_file` key in it.
    func resolveEnvironment(in item: ConfigNode) throws -> ConfigNode {
        guard case .mapping(let entries) = item.value,
            let index = entries.firstIndex(where: { $0.key.scalar == "env" }),
            case .mapping(let environment) = entries[index].value.value
        else { return item }
        var fileKeys: [String: String] = [:]
        for (key, _) in environment {
            guard let name = key.scalar, name.hasSuffix(Self.suffix), name.count > Self.suffix.count else { continue }
            fileKeys[name] = String(name.dropLast(Self.suffix.count))
        }
        guard !fileKeys.isEmpty else { return item }
        var resolved = entries
        resolved[index] = (entries[index].key, try resolve(entries[index].value, fileKeys: fileKeys))
        var copy = item
        copy.value = .mapping(resolved)
        return copy
    }
}
