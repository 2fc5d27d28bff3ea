import FeedCore
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `<secret>_file: PATH` keys: a secret parameter (`token`, `consumer_key`) read from a file only
/// its owner can read or write, like ssh's private keys.
///
/// Every mapping a feed's parameters come from (the feed's own, `defaults:`) has its `X_file`
/// entry replaced by an `X` entry holding the file's text (surrounding whitespace and the trailing
/// newline trimmed), located at the `X_file` key and value, so sources read `X` as usual and never
/// know where it came from. No message ever quotes the file's content.
struct SecretFiles {
    /// The suffix that turns a secret parameter's name into its file key.
    static let suffix = "_file"
    /// The largest secret file accepted, in bytes.
    static let maximumSize = 64 * 1024

    /// The configuration file: relative paths are resolved against its directory.
    let file: SourceFile
    /// `$HOME`, for `~/` paths.
    let home: String?

    /// `token_file` for `token`, when `name` is a secret parameter among `specs`.
    static func fileKeys(for specs: [ParameterSpec]) -> [String: String] {
        Dictionary(
            specs.filter { $0.kind == .secret }.map { ($0.name + suffix, $0.name) },
            uniquingKeysWith: { first, _ in first })
    }

    /// `node` (a mapping) with each `X_file` entry whose `X` is in `fileKeys` replaced by `X` and
    /// the secret read from the file; an `X_file` that is null (an unset `${VAR}`) is dropped.
    func resolve(_ node: ConfigNode, fileKeys: [String: String]) throws -> ConfigNode {
        guard case .mapping(let entries) = node.value,
            entries.contains(where: { fileKeys[$0.key.scalar ?? ""] != nil })
        else { return node }
        var resolved: [(key: ConfigNode, value: ConfigNode)] = []
        for (key, value) in entries {
            guard let fileKey = key.scalar, let secretKey = fileKeys[fileKey] else {
                resolved.append((key, value))
                continue
            }
            if let other = entries.first(where: { $0.key.scalar == secretKey }) {
                throw ConfigError(
                    "'\(secretKey)' and '\(fileKey)' are both set: use one", at: key.location,
                    notes: ["note: '\(secretKey)' is set at \(other.key.location)"])
            }
            if value.isNull { continue }
            guard let path = value.scalar else {
                throw ConfigError(
                    "'\(fileKey)' must be the path of a file holding the \(secretKey), found \(value.kindDescription)",
                    at: value.location)
            }
            let secret = try secret(at: path, key: fileKey, keyNode: key)
            resolved.append(
                (ConfigNode(.scalar(secretKey, plain: true), at: key.location),
                 ConfigNode(.scalar(secret, plain: false), at: value.location)))
        }
        return ConfigNode(.mapping(resolved), at: node.location, unsetVariables: node.unsetVariables)
    }

    /// The secret in the file at `path` (as written in feeds.yaml), after checking its permissions.
    private func secret(at path: String, key: String, keyNode: ConfigNode) throws -> String {
        func failure(_ message: String, notes: [String] = []) -> ConfigError {
            ConfigError("\(key) \(path) \(message)", at: keyNode.location, notes: notes)
        }
        guard !path.isEmpty else { throw ConfigError("'\(key)' must not be empty", at: keyNode.location) }
        let resolved = self.resolved(path)
        var info = stat()
        guard stat(resolved, &info) == 0 else {
            throw ConfigError("cannot read \(key) \(path): \(String(cString: strerror(errno)))", at: keyNode.location)
        }
        guard info.st_mode & S_IFMT == S_IFREG else { throw failure("is not a regular file") }
        let mode = Int(info.st_mode) & 0o7777
        let modeText = "mode " + Self.octal(mode)
        if mode & 0o044 != 0 {
            throw failure("is readable by others (\(modeText)); chmod 600 it", notes: ["note: a file holding a secret must be readable by its owner only, like an ssh key"])
        }
        if mode & 0o022 != 0 {
            throw failure("is writable by others (\(modeText)); chmod 600 it", notes: ["note: a file holding a secret must be writable by its owner only, like an ssh key"])
        }
        let bytes: [UInt8]
        do {
            bytes = try Self.contents(resolved)
        } catch {
            switch error {
            case .system(let code):
                throw ConfigError("cannot read \(key) \(path): \(String(cString: strerror(code)))", at: keyNode.location)
            case .tooLarge:
                throw failure("is larger than \(Self.maximumSize / 1024) KiB: it should hold the secret alone")
            }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw failure("is not UTF-8 text") }
        let secret = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !secret.isEmpty else { throw failure("is empty") }
        guard !secret.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw failure("holds more than one line (or control characters): it should hold the secret alone")
        }
        return secret
    }

    /// `~/x` against `$HOME`, a relative path against the configuration file's directory.
    /// `path` as written in feeds.yaml, resolved: `~/` against `$HOME`, a relative path against
    /// the folder of feeds.yaml.
    func resolved(_ path: String) -> String {
        if path == "~" || path.hasPrefix("~/"), let home, !home.isEmpty {
            return home + path.dropFirst()
        }
        if path.hasPrefix("/") { return path }
        let directory = (file.path as NSString).deletingLastPathComponent
        return directory.isEmpty ? path : directory + "/" + path
    }

    private enum ReadFailure: Error {
        case system(Int32)
        case tooLarge
    }

    private static func contents(_ path: String) throws(ReadFailure) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .system(errno) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .system(errno)
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
            guard bytes.count <= maximumSize else { throw .tooLarge }
        }
    }

    /// `0644`.
    static func octal(_ mode: Int) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
