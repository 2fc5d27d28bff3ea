import FeedConfig
import FeedCore
import Foundation

extension Aggregator {
    /// The feeds of `document` that build, and the error of each one that does not (a feed with an
    /// error is skipped; the next one is still built), so every error of a file is reported at once.
    func buildFeeds(of document: FeedsDocument, baseURLOverride: URL?) -> ([Feed], [ConfigError]) {
        var feeds: [Feed] = []
        var errors: [ConfigError] = []
        for declaration in document.feeds {
            do {
                feeds.append(
                    try registry.makeFeed(
                        name: declaration.name, sourceType: declaration.sourceType, parameters: declaration.parameters,
                        baseURLOverride: baseURLOverride))
            } catch let error as ConfigError {
                errors.append(error)
            } catch {
                errors.append(ConfigError("feed '\(declaration.name)': \(error)", at: declaration.location))
            }
        }
        return (feeds, errors)
    }
}
