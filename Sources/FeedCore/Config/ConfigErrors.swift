/// Every problem found in one configuration file, reported together like a compiler's diagnostics.
///
/// Loaders collect errors per feed (a feed with an error is skipped, the next one is still
/// checked) and throw them with ``throwIfAny(_:)``: one error is thrown as the ``ConfigError``
/// itself (so its rendering is unchanged), several as one `ConfigErrors`.
public struct ConfigErrors: Error, Sendable, CustomStringConvertible {
    /// The errors, in file order (errors without a location first).
    public var errors: [ConfigError]

    /// Creates the aggregate of `errors`, sorted by their position in the file.
    public init(_ errors: [ConfigError]) {
        self.errors = errors.enumerated()
            .sorted { Self.key($0.element, $0.offset).lexicographicallyPrecedes(Self.key($1.element, $1.offset)) }
            .map(\.element)
    }

    /// Each error as ``ConfigError`` renders it (`file:line:col: error: …`, the line, a caret,
    /// notes), then `N errors`.
    public var description: String {
        (errors.map(\.description) + ["\(errors.count) errors"]).joined(separator: "\n")
    }

    /// Throws nothing for no error, the error itself for one, and a `ConfigErrors` for several.
    public static func throwIfAny(_ errors: [ConfigError]) throws {
        guard let first = errors.first else { return }
        if errors.count == 1 { throw first }
        throw ConfigErrors(errors)
    }

    /// The errors of `error` when it is a ``ConfigError`` or a `ConfigErrors`, else `nil`.
    public static func unwrap(_ error: any Error) -> [ConfigError]? {
        if let error = error as? ConfigError { return [error] }
        if let error = error as? ConfigErrors { return error.errors }
        return nil
    }

    private static func key(_ error: ConfigError, _ offset: Int) -> [Int] {
        guard let location = error.location else { return [0, 0, 0, offset] }
        return [1, location.line, location.column, offset]
    }
}
