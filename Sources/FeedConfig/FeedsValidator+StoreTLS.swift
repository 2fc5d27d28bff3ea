import FeedCore
import Foundation

/// The `store_tls` setting of feeds.yaml: libpq's TLS parameters for a PostgreSQL store.
extension FeedsValidator {
    /// The keys `store_tls` accepts.
    static let storeTLSKeys = ["sslcert", "sslkey", "sslmode", "sslrootcert"]
    /// libpq's `sslmode` values.
    static let sslModes = ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"]

    /// The `store_tls` mapping, when given (`{sslmode: verify-full, sslrootcert: ~/.postgresql/root.crt}`):
    /// each value one line, `sslmode` one of libpq's, file paths resolved against the folder of
    /// feeds.yaml (`~/` against `$HOME`; `sslrootcert: system` kept).
    static func storeTLS(in parameters: FeedParameters, paths: SecretFiles) throws -> [String: String]? {
        guard let node = parameters.value("store_tls"), !node.isNull else { return nil }
        guard let entries = node.entries else {
            throw ConfigError(
                "'store_tls' must be a mapping of \(storeTLSKeys.joined(separator: ", ")), found \(node.kindDescription)",
                at: node.location)
        }
        var result: [String: String] = [:]
        for (key, value) in entries {
            let name = key.scalar ?? ""
            guard storeTLSKeys.contains(name) else {
                throw ConfigError(
                    "unknown key '\(name)' in 'store_tls' (known: \(storeTLSKeys.joined(separator: ", ")))", at: key.location)
            }
            guard let text = value.scalar?.trimmingCharacters(in: .whitespaces), !text.isEmpty,
                !text.contains(where: \.isNewline)
            else {
                throw ConfigError("'store_tls: \(name)' must be one line of text", at: value.location)
            }
            switch name {
            case "sslmode":
                guard sslModes.contains(text) else {
                    throw ConfigError(
                        "'store_tls: sslmode' must be one of \(sslModes.joined(separator: ", ")), found '\(text)'",
                        at: value.location)
                }
                result[name] = text
            case "sslrootcert" where text == "system": result[name] = text
            default: result[name] = paths.resolved(text)
            }
        }
        return result
    }
}
