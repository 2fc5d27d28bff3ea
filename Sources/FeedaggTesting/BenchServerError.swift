/// A bench server that could not be started or queried.
public struct BenchServerError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, with the server's standard error when relevant.
    public var message: String

    /// Creates an error.
    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
