import FeedConfig
import FeedCore
import Synchronization

/// The configuration the server runs with: loaded at start, replaced on SIGHUP only when the new
/// file is valid (an invalid file is reported and this one kept).
struct ServedConfiguration: Sendable {
    /// The loaded feeds.yaml.
    var document: FeedsDocument
    /// Every declared feed, built.
    var feeds: [Feed]

    /// The declared feed names, in declaration order (the stream's order).
    var names: [String] { document.feeds.map(\.name) }

    /// The saved views' names, in file order.
    var viewNames: [String] { document.views.map(\.name) }
}

/// The current ``ServedConfiguration``, shared by the routes and the scheduler.
final class ConfigurationBox: Sendable {
    private let state: Mutex<(configuration: ServedConfiguration, generation: Int)>

    init(_ configuration: ServedConfiguration) {
        state = Mutex((configuration, 0))
    }

    /// The configuration in effect now.
    var current: ServedConfiguration { state.withLock { $0.configuration } }

    /// How many times the configuration was replaced (what pages rendered from it are keyed by).
    var generation: Int { state.withLock { $0.generation } }

    /// Replaces the configuration.
    func replace(with configuration: ServedConfiguration) {
        state.withLock { $0 = (configuration, $0.generation + 1) }
    }
}
