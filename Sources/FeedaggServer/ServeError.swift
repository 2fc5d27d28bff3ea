/// Why `feedagg serve` cannot start, with what the user must change.
public struct ServeError: Error, Sendable, CustomStringConvertible {
    /// The message, naming the option, file or address at fault.
    public var message: String

    /// Creates an error.
    public init(_ message: String) {
        self.message = message
    }

    public var description: String { "feedagg serve: " + message }
}
