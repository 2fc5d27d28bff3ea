public import Foundation

/// One redirect the transport followed: a `3xx` status and where it led.
public struct HTTPRedirect: Sendable, Equatable {
    /// The redirect's status (301, 302, 303, 307, 308).
    public var status: Int
    /// The `Location` it pointed at, resolved against the URL it answered.
    public var location: URL

    /// Creates a redirect.
    public init(status: Int, location: URL) {
        self.status = status
        self.location = location
    }
}
