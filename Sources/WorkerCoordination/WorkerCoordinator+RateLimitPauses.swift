// Built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

public import Foundation
import PostgresNIO

extension WorkerCoordinator {
    /// Shares a rate limit: requests to `origin` with `credential` should wait until `until`.
    /// A later pause already recorded is kept. `credential` identifies the credential without being
    /// it (a digest, empty for requests without one): it is stored and compared, never a secret.
    public func recordPause(origin: String, credential: String, until: Date, setBy feed: String)
        async throws(CoordinationError)
    {
        try await attempt("recording a rate-limit pause for \(origin)") {
            try await client.query(
                """
                INSERT INTO rate_limit_pauses (origin, credential, until, set_by)
                VALUES (\(origin), \(credential), \(until), \(feed))
                ON CONFLICT (origin, credential) DO UPDATE
                SET until = greatest(rate_limit_pauses.until, EXCLUDED.until),
                    set_by = CASE WHEN EXCLUDED.until > rate_limit_pauses.until THEN EXCLUDED.set_by
                                  ELSE rate_limit_pauses.set_by END
                """, logger: logger)
        }
    }

    /// Every pause that has not ended yet (the database's clock): origin, credential digest, until
    /// when, and the feed whose response set it.
    public func activePauses() async throws(CoordinationError)
        -> [(origin: String, credential: String, until: Date, setBy: String)]
    {
        try await attempt("reading the rate-limit pauses") {
            let rows = try await client.query(
                "SELECT origin, credential, until, set_by FROM rate_limit_pauses WHERE until > clock_timestamp()",
                logger: logger)
            var pauses: [(origin: String, credential: String, until: Date, setBy: String)] = []
            for try await (origin, credential, until, feed) in rows.decode((String, String, Date, String).self) {
                pauses.append((origin, credential, until, feed))
            }
            return pauses
        }
    }

    /// The pause any worker recorded for `origin` and `credential`, when it has not ended yet
    /// (the database's clock): until when, and the feed whose response set it.
    public func pause(origin: String, credential: String) async throws(CoordinationError)
        -> (until: Date, setBy: String)?
    {
        try await attempt("reading the rate-limit pause of \(origin)") {
            let rows = try await client.query(
                """
                SELECT until, set_by FROM rate_limit_pauses
                WHERE origin = \(origin) AND credential = \(credential) AND until > clock_timestamp()
                """, logger: logger)
            var found: (Date, String)?
            for try await (until, feed) in rows.decode((Date, String).self) { found = (until, feed) }
            return found.map { (until: $0.0, setBy: $0.1) }
        }
    }
}

#endif
