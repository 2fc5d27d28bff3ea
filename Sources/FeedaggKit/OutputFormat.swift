import FeedCore
import Foundation

/// Output formats of the unified stream.
public enum OutputFormat: String, Sendable, CaseIterable {
    /// Aligned columns for people.
    case table
    /// One JSON page object.
    case json
    /// One JSON object per line, per item.
    case jsonl
    /// An Atom 1.0 feed document (RFC 4287), see ``AtomRenderer``.
    case atom
    /// A JSON Feed 1.1 document, see ``JSONFeedRenderer``.
    case jsonfeed

    /// Whether this is a feed document (`atom`, `jsonfeed`), which needs a ``FeedIdentity``.
    public var isFeedDocument: Bool { self == .atom || self == .jsonfeed }
}
