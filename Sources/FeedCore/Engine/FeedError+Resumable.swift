import Foundation

extension FeedError.Reason {
    /// Whether the page could not be saved (``notSaved(_:)``).
    public var isNotSaved: Bool {
        if case .notSaved = self { return true }
        return false
    }

    /// Whether a later pull should continue from where this failure stopped the walk. Not for
    /// pagination that contradicts itself (resuming would meet the same contradiction) or a
    /// configuration problem.
    public var isResumable: Bool {
        switch self {
        case .httpStatus, .transport, .decode, .rateLimited, .notSaved: return true
        case .paginationCycle, .paginationInconsistent, .configuration: return false
        }
    }
}
