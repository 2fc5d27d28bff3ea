import FeedStorage
import Foundation
import Testing

/// `PostgresURL`'s TLS parameters (`sslmode`, `sslrootcert`, `sslcert`, `sslkey`) and its handling of
/// passwords holding URL delimiters: parsed as the password, never in a message.
@Suite("PostgreSQL URL: TLS parameters, and passwords with / ? # @")
struct PostgresTLSURLTests {
    /// An environment whose `HOME` holds no `~/.postgresql/`.
    let environment = ["HOME": "/nonexistent-feedagg-home"]

    @Test("sslmode defaults to prefer; every libpq mode parses; URL parameters win over PGSSL* variables")
    func modes() throws {
        #expect(try PostgresURL("postgres://u@db:5432/feeds", environment: environment).tls.mode == .prefer)
        for mode in PostgresTLS.Mode.allCases {
            let url = try PostgresURL("postgres://u@db/feeds?sslmode=\(mode.rawValue)", environment: environment)
            #expect(url.tls.mode == mode)
        }
        var variables = environment
        variables["PGSSLMODE"] = "verify-ca"
        variables["PGSSLROOTCERT"] = "/etc/ca.crt"
        #expect(try PostgresURL("postgres://u@db/feeds", environment: variables).tls.mode == .verifyCA)
        let url = try PostgresURL("postgres://u@db/feeds?sslmode=require&sslrootcert=~/root.crt", environment: variables)
        #expect(url.tls.mode == .require)
        #expect(url.tls.rootCertificate == .file("/nonexistent-feedagg-home/root.crt"))
        #expect(url.tls.rootCertificateIsDefault == false)
    }

    @Test("sslrootcert=system means verify-full; a weaker explicit mode, or an unknown one, is an error naming no password")
    func systemRoots() throws {
        let url = try PostgresURL("postgres://u:pw@db/feeds?sslrootcert=system", environment: environment)
        #expect(url.tls.mode == .verifyFull)
        #expect(url.tls.rootCertificate == .system)
        let weak = #expect(throws: StoreError.self) {
            try PostgresURL("postgres://u:s3cr%2Ft@db/feeds?sslrootcert=system&sslmode=require", environment: environment)
        }
        #expect(weak?.detail.contains("verify-full") == true, "\(String(describing: weak))")
        let unknown = #expect(throws: StoreError.self) {
            try PostgresURL("postgres://u:s3cr%2Ft@db/feeds?sslmode=verify_full", environment: environment)
        }
        #expect(unknown?.detail.contains("verify_full") == true)
        for error in [weak, unknown].compactMap({ $0 }) {
            #expect(!"\(error)".contains("s3cr"), "\(error)")
        }
    }

    @Test(
        "a password with raw or percent-encoded / ? # @ is parsed whole and never shown",
        arguments: [
            ("postgres://u:se/cr?et@db:5433/feeds", "se/cr?et"),
            ("postgres://u:p@ss#w/rd@db:5433/feeds", "p@ss#w/rd"),
            ("postgres://u:se%2Fcr%3Fet%23%40x@db:5433/feeds", "se/cr?et#@x"),
            ("postgres://u:a?b=c@db:5433/feeds?sslmode=disable", "a?b=c"),
        ])
    func delimitersInPasswords(text: String, password: String) throws {
        let url = try PostgresURL(text, environment: environment)
        #expect(url.password == password)
        #expect(url.user == "u")
        #expect(url.host == "db")
        #expect(url.port == 5433)
        #expect(url.database == "feeds")
        #expect(url.redacted == "postgres://u@db:5433/feeds")
        #expect(!PostgresURL.redact(text).contains(password), "\(PostgresURL.redact(text))")
    }

    @Test(
        "a malformed URL's error shows it without its user info",
        arguments: [
            "postgres://u:se/cr?et@db:port/feeds",
            "postgres://u:se/cr?et@/feeds",
            "postgres://u:se/cr?et@db:5432/",
            "postgres://u:se/cr?et@db:5432/feeds?sslmode=bogus",
            "postgres://u:se/cr?et@db:99999/feeds",
            "postgres://u:se/cr?et?sslmode=x@db:1/feeds",
        ])
    func malformed(text: String) throws {
        let error = try #require(throws: StoreError.self) { try PostgresURL(text, environment: environment) }
        for fragment in ["se/cr", "cr?et", "u:"] {
            #expect(!"\(error)".contains(fragment), "\(error)")
        }
    }

    @Test("an @ inside a query parameter's value does not end the user info")
    func atInQuery() throws {
        let url = try PostgresURL("postgres://u:pw@db/feeds?sslrootcert=/keys/a@b/root.crt", environment: environment)
        #expect(url.password == "pw")
        #expect(url.host == "db")
        #expect(url.tls.rootCertificate == .file("/keys/a@b/root.crt"))
    }

    @Test("store_tls parameters are added to the URL unless it gives them itself")
    func storeTLSParameters() {
        let settings = ["sslmode": "verify-full", "sslrootcert": "/etc/my ca.crt"]
        #expect(
            PostgresURL.withTLSParameters(settings, in: "postgres://u@db/feeds")
                == "postgres://u@db/feeds?sslmode=verify-full&sslrootcert=/etc/my%20ca.crt")
        #expect(
            PostgresURL.withTLSParameters(settings, in: "postgres://u@db/feeds?sslmode=disable")
                == "postgres://u@db/feeds?sslmode=disable&sslrootcert=/etc/my%20ca.crt")
    }
}
