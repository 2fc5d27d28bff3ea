/// A page body that is not what the source expected.
public struct PageDecodeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// JSON path of the problem (`$`, `$[3].owner.login`, `$.photos`).
    public var path: String
    /// What was wrong.
    public var message: String

    /// Creates a decode error.
    public init(path: String, _ message: String) {
        self.path = path
        self.message = message
    }

    /// The message and the JSON path where the page is wrong.
    public var description: String { "\(message) at \(path)" }
}
