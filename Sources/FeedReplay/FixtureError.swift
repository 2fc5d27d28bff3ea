import Synchronization
import FeedCore
import Foundation

/// A fixture file that could not be read.
public struct FixtureError: Error, Sendable, CustomStringConvertible {
    /// The fixture file that could not be read, as given.
    public var path: String
    /// What was wrong.
    public var message: String
    public var description: String { "\(path): \(message)" }
}
