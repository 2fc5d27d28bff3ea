import ArgumentParser
import FeedaggKit
import FeedaggServer
import Foundation

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
                  feedagg serve --listen 0.0.0.0:8080 --auth-token-file ~/.config/feedagg/token
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

        @Option(help: .hidden)
        var intervalScale: Double = 1

        @Flag(name: .shortAndLong, help: "Log each pull's per-feed summary to standard error.")
        var verbose = false

        func validate() throws {
            guard intervalScale > 0 && intervalScale <= 1 else { throw ValidationError("--interval-scale must be in (0, 1]") }
        }

        func run() async throws {
            var settings = ServeSettings(configPath: try config.path())
            settings.store = store.location
            settings.listen = try ListenAddress(parsing: listen)
            settings.authTokenFile = authTokenFile
            settings.intervalScale = intervalScale
            settings.verbose = verbose
            try await FeedaggServer(settings: settings).run()
        }
    }
}
