/// A throwaway PostgreSQL cluster could not be set up or used: what failed, with the command,
/// its output and the server log's tail where they help.
public struct PostgresClusterError: Error, Sendable, CustomStringConvertible {
    /// What happened.
    public var message: String

    init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
