import FeedStore
import Foundation
import PostgresFeedStore

extension Aggregator {
    /// Opens the PostgreSQL store `text` names (`${VAR}` and `PGPASSWORD` from the environment);
    /// every error names the URL with its password redacted.
    func openPostgres(_ text: String, keepRaw: Bool = true) throws -> any StoreDriver {
        let url = try PostgresURL(text, environment: environment)
        return try PostgresFeedStore.open(url: url, now: StoreClock.now(environment: environment), keepRaw: keepRaw)
    }
}
