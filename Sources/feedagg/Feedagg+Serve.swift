import ArgumentParser
import FeedaggKit
import FeedaggServer
import Foundation

#if canImport(CMalloc)
    import CMalloc
#endif

extension Feedagg {
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Keep every feed fresh on a schedule and serve the merged stream over HTTP.",
            discussion: """
                Pulls each feed on its own interval (`interval:` in feeds.yaml, default 15m) and \
                serves / (a web page), /api/items, /api/feeds, /stream.atom, /stream.json, \
                /feeds/NAME.atom, /feeds/NAME.json, POST /api/refresh, /api/refresh/status, \
                /metrics and /healthz (docs/serve.md). Prints `serving http://HOST:PORT` on \
                standard error once it listens. SIGHUP reloads feeds.yaml (an invalid file is \
                reported and the running configuration kept). SIGTERM or SIGINT stops it (exit \
                status 0).

                Examples:
                  feedagg serve                           http://127.0.0.1:8080
                  feedagg serve --listen 127.0.0.1:0      a free port (printed)
                  feedagg serve --print-token > ~/.config/feedagg/token && chmod 600 ~/.config/feedagg/token
                  feedagg serve --listen 0.0.0.0:8080 --auth-token-file ~/.config/feedagg/token
                  feedagg serve --public-url https://feeds.example.net   behind a reverse proxy
                """)

        @OptionGroup var config: ConfigOptions
        @OptionGroup var store: StoreOptions

        @Option(
            help: ArgumentHelp(
                "Where to listen: HOST:PORT (port 0: any free port). Anything but loopback needs --auth-token-file.",
                valueName: "host:port"))
        var listen: String = ListenAddress.standard.description

        @Option(
            help: ArgumentHelp(
                "A file (mode 600) holding the token every request must send as Authorization: Bearer TOKEN.",
                valueName: "file"),
            completion: .file())
        var authTokenFile: String?

        @Option(
            name: .customLong("public-url"),
            help: ArgumentHelp(
                "An origin a reverse proxy serves this server under (repeatable): its Host is accepted, and links use it.",
                valueName: "url"))
        var publicURLs: [String] = []

        @Option(help: ArgumentHelp("Requests handled at once; more wait up to 2 s, then get 503.", valueName: "n"))
        var maxRequests = 64

        @Flag(help: "Print a new random token for --auth-token-file (32 random bytes, base64url) and exit.")
        var printToken = false

        @Option(help: .hidden)
        var intervalScale: Double = 1

        @Flag(name: .shortAndLong, help: "Log each pull's per-feed summary to standard error.")
        var verbose = false

        func validate() throws {
            guard intervalScale > 0 && intervalScale <= 1 else { throw ValidationError("--interval-scale must be in (0, 1]") }
            guard (1...4096).contains(maxRequests) else { throw ValidationError("--max-requests must be from 1 to 4096") }
        }

        func run() async throws {
            if printToken {
                print(AuthToken.generate())
                return
            }
            Self.limitMallocArenas()
            var settings = ServeSettings(configPath: try config.path())
            settings.store = store.location
            settings.listen = try ListenAddress(parsing: listen)
            settings.authTokenFile = authTokenFile
            settings.intervalScale = intervalScale
            settings.verbose = verbose
            settings.publicURLs = publicURLs
            settings.maxConcurrentRequests = maxRequests
            try await FeedaggServer(settings: settings).run()
        }

        /// Two malloc arenas instead of glibc's default of eight per core, unless the environment
        /// chose (`MALLOC_ARENA_MAX`).
        ///
        /// Every thread that allocates under contention gets an arena of its own up to that limit,
        /// and each arena keeps the memory freed into it for that arena's next allocations: the
        /// pulls' threads (a start-up refresh of 100 feeds) left arenas that the threads serving
        /// pages afterwards could not reuse. On PostgreSQL, a server that refreshed 100 feeds at
        /// start and then served 2,000 pages of 497 items peaked at 104.5 MB with the default and
        /// 72.3 MB with two arenas (docs/benchmarks.md, READ-SERVE).
        static func limitMallocArenas() {
            #if canImport(CMalloc)
                if ProcessInfo.processInfo.environment["MALLOC_ARENA_MAX"] == nil {
                    _ = mallopt(M_ARENA_MAX, 2)
                }
            #endif
        }
    }
}
