/// A secret value (token, key) that prints as `REDACTED` everywhere.
public struct Secret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The secret itself. Read it only to put it on the wire.
    public let value: String
    /// Wraps a secret.
    public init(_ value: String) { self.value = value }
    /// `REDACTED`: a secret never prints.
    public var description: String { "REDACTED" }
    /// `REDACTED`: a secret never prints, not even in a debug dump.
    public var debugDescription: String { "REDACTED" }
}
