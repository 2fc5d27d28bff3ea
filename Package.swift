// swift-tools-version: 6.1
import PackageDescription

/// Strict settings shared by every Swift target of ours (not the dependencies'). In debug builds
/// (what `make test` and CI build) warnings are errors, so the package stays at zero warnings;
/// release builds (`make demo`, `make install`) are not stopped by one.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .unsafeFlags(["-warnings-as-errors"], .when(configuration: .debug)),
]

/// The source modules FeedaggKit registers. `swift package new-source` adds to this list.
let sourceModules: [Target.Dependency] = [
    "GitHubSource", "PhotosSource", "HTTPSource",
    "GitHubStargazersSource",
    "WebFeedSource", "ExecSource",
    // new-source inserts source module names above this line (keep it)
]

/// The PostgreSQL store, for the targets that open one: only with the PostgreSQL trait.
let postgresStore: Target.Dependency = .target(name: "PostgresFeedStore", condition: .when(traits: ["PostgreSQL"]))
/// Worker coordination through PostgreSQL (several `feedagg serve`): only with the PostgreSQL trait.
let workerCoordination: Target.Dependency = .target(name: "WorkerCoordination", condition: .when(traits: ["PostgreSQL"]))

let package = Package(
    name: "feedagg",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "feedagg", targets: ["feedagg"]),
        .executable(name: "feedagg-cpu-bench", targets: ["feedagg-cpu-bench"]),
        .executable(name: "feedagg-store-gen", targets: ["feedagg-store-gen"]),
        .executable(name: "feedagg-feed-bench", targets: ["feedagg-feed-bench"]),
        .library(name: "FeedCore", targets: ["FeedCore"]),
        .library(name: "FeedaggTesting", targets: ["FeedaggTesting"]),
    ],
    // PostgreSQL (on by default): the `--db postgres://…` store, through postgres-nio, which brings
    // swift-nio-ssl and swift-crypto (two BoringSSL builds). `swift build --disable-default-traits`
    // builds a SQLite-only feedagg without them; it says so when given a PostgreSQL URL.
    traits: [
        .trait(name: "PostgreSQL", description: "The PostgreSQL store (--db postgres://…), on postgres-nio."),
        .default(enabledTraits: ["PostgreSQL"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // Already in postgres-nio's graph; WorkerCoordination hashes credentials with its SHA-256.
        .package(url: "https://github.com/apple/swift-crypto.git", "3.9.0"..<"6.0.0"),
        // `make docs`: the DocC archives of FeedCore and GitHubSource (`swift package generate-documentation`).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // C libraries, wrapped by exactly one Swift target each.
        .systemLibrary(
            name: "CCurl", path: "Sources/CCurl", pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(
            name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(
            name: "CYAML", path: "Sources/CYAML", pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]),
        // glibc's <malloc.h>: `feedagg serve` limits its malloc arenas (nothing to link).
        .systemLibrary(name: "CMalloc", path: "Sources/CMalloc"),
        .systemLibrary(
            name: "CLibXML2", path: "Sources/CLibXML2", pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]),

        // The engine: FeedSource plugin API, item model, pagination, merge. No C, no I/O library.
        .target(name: "FeedCore", swiftSettings: strict),

        // HTTP transport on libcurl's multi interface.
        .target(name: "CurlHTTP", dependencies: ["CCurl", "CZlib", "FeedCore"], swiftSettings: strict),

        // feeds.yaml loader on libyaml.
        .target(name: "FeedConfig", dependencies: ["CYAML", "FeedCore", "FeedSearch"], swiftSettings: strict),

        // Built-in source modules: each depends on the core (and, for another endpoint of the same
        // API, on that API's module; see "Depending on another source module" in WritingASource.md).
        .target(name: "GitHubSource", dependencies: ["FeedCore"], swiftSettings: strict),
        .target(name: "PhotosSource", dependencies: ["FeedCore"], swiftSettings: strict),
        // Declarative sources (`source: http`): URL template, pagination and fields from feeds.yaml.
        .target(name: "HTTPSource", dependencies: ["FeedCore"], swiftSettings: strict),
        // An example built with `swift package new-source`; it depends on GitHubSource for GitHubAPI.
        .target(name: "GitHubStargazersSource", dependencies: ["FeedCore", "GitHubSource"], swiftSettings: strict),
        // `source: feed`: RSS, Atom and JSON Feed documents, read with libxml2's streaming reader.
        .target(name: "WebFeedSource", dependencies: ["FeedCore", "CLibXML2", "StableHash"], swiftSettings: strict),
        // `source: exec`: plugins in any language, speaking JSON lines. Run by its own posix_spawn
        // type (PluginProcess), not swift-subprocess: 1.0's fatalError on a descriptor dropped on an
        // error path (a plugin exiting before reading its input) crashed `feedagg serve`.
        .target(name: "ExecSource", dependencies: ["FeedCore", "PosixSpawn"], swiftSettings: strict),
        // new-source inserts source module targets above this line (keep it)

        // In-process HTTP/1.1 server on 127.0.0.1 (replay, tests).
        .target(
            name: "LoopbackServer",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strict),

        // Recorded exchanges (Fixtures/) and the server that replays them.
        .target(name: "FeedReplay", dependencies: ["FeedCore", "LoopbackServer"], swiftSettings: strict),

        // The store interface the application talks to (StoreDriver), its value types and errors,
        // and the engine-independent parts of the stream order (placement, cursor). Foundation only.
        // The query language of search, saved views and filter rules (docs/query.md): parser,
        // tokenizer and the reference evaluator both store engines are checked against.
        .target(name: "FeedSearch", dependencies: ["FeedCore"], swiftSettings: strict),
        .target(name: "FeedStorage", dependencies: ["FeedCore", "FeedSearch"], swiftSettings: strict),

        // SQLite store: items, HTTP cache validators, pull state (GRDB).
        .target(
            name: "FeedStore",
            dependencies: [
                "FeedCore", "FeedStorage", .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C interface, for the stream page's column reads (StatementColumns).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: strict),

        // The PostgreSQL store: the same interface on PostgresNIO's PostgresClient pool (no ORM).
        .target(
            name: "PostgresFeedStore",
            dependencies: [
                "FeedCore", "FeedStorage",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),

        // Application layer: source registry, pull orchestration, rendering, exit codes.
        .target(
            name: "FeedaggKit",
            dependencies: [
                "FeedCore", "CurlHTTP", "FeedConfig", "FeedReplay", "FeedStorage", "FeedStore", postgresStore, "StableHash",
            ] + sourceModules,
            swiftSettings: strict),

        // The page `feedagg serve` answers at `/` (server-rendered first page, Mustache template),
        // its script and stylesheet: infinite scroll, the refresh control, the feeds' state.
        .target(
            name: "FeedaggWebPage",
            dependencies: ["FeedaggKit", "FeedCore", .product(name: "Mustache", package: "swift-mustache")],
            swiftSettings: strict),

        // `feedagg serve`: the HTTP server (Hummingbird 2), the pull scheduler and their lifecycle
        // (swift-service-lifecycle), metrics (swift-metrics + swift-prometheus), gzip (compress-nio).
        .target(
            name: "FeedaggServer",
            dependencies: [
                "FeedaggKit", "FeedCore", "FeedConfig", "FeedStorage", "FeedStore", "FeedaggWebPage", postgresStore, workerCoordination,
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict),

        // The thin command-line executable.
        .executableTarget(
            name: "feedagg",
            dependencies: [
                "FeedaggKit", "FeedStorage", "FeedStore", "FeedaggServer", "ExecSource", "WebFeedSource", workerCoordination,
                .target(name: "CMalloc", condition: .when(platforms: [.linux])),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict),

        // CPU benchmark (`make bench-cpu`): decode + map + merge of 100,000+ items from page files
        // through the built-in sources, items/s per stage and peak RSS.
        .executableTarget(
            name: "feedagg-cpu-bench",
            dependencies: ["FeedCore", "GitHubSource", "PhotosSource", "DeterministicRandom", "StableHash"],
            swiftSettings: strict),
        // Store generator for the read benchmark (`Scripts/bench.sh --workloads READ`): N feeds × M
        // items written through FeedStore's real commit path.
        .executableTarget(
            name: "feedagg-store-gen", dependencies: ["FeedCore", "FeedStorage", "FeedStore", postgresStore, "DeterministicRandom"],
            swiftSettings: strict),

        // Feed parser benchmark (`make bench-feed`): MB/s and peak RSS over the feed fixtures and one
        // large Atom document; an exec plugin's cost per page.
        .executableTarget(
            name: "feedagg-feed-bench",
            dependencies: ["WebFeedSource", "ExecSource", "HTTPSource", "CurlHTTP", "FeedConfig", "LoopbackServer"],
            swiftSettings: strict),

        // Several `feedagg serve` workers sharing the feeds through PostgreSQL: registry and
        // heartbeats, leases (FOR UPDATE SKIP LOCKED), next due times, the per-host budget, shared
        // rate-limit pauses. Its own migrations table, apart from the store's.
        // Compiled only with the PostgreSQL trait (its sources are in `#if PostgreSQL`).
        .target(
            name: "WorkerCoordination",
            dependencies: [
                "FeedStorage", postgresStore,
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "Crypto", package: "swift-crypto", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        // A worker that dies holding leases (the coordination tests kill it with SIGKILL).
        .executableTarget(
            name: "feedagg-lease-holder",
            dependencies: [
                workerCoordination,
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),

        // Test support: the bench server launcher, fixture helpers, loud test doubles.
        .target(
            name: "FeedaggTesting",
            dependencies: ["FeedCore", "FeedStorage", "LoopbackServer", "FeedReplay", "DeterministicRandom", "PosixSpawn"],
            swiftSettings: strict),
        // SplitMix64, the seeded generator of the tests, the store generator and the CPU benchmark.
        .target(name: "DeterministicRandom", swiftSettings: strict),
        // Starting a child with posix_spawn (pipes, working directory, signals, session): one copy
        // for exec plugins (ExecSource's PluginProcess) and the tests' children (FeedaggTesting).
        .target(name: "PosixSpawn", swiftSettings: strict),
        // 64-bit FNV-1a, the hash that never changes: replay store names, feed entries' digest ids,
        // the CPU benchmark's output checksum.
        .target(name: "StableHash", swiftSettings: strict),

        // The work behind the `new-source` command plugin: writes a source module, its tests and
        // fixture, and wires them into this file and SourceRegistry.swift. Foundation only.
        .executableTarget(name: "feedagg-scaffold", swiftSettings: strict),
        .plugin(
            name: "NewSourcePlugin",
            capability: .command(
                intent: .custom(
                    verb: "new-source",
                    description: "Add a source module: --name Reddit --pagination link|page [--type-name reddit]"),
                permissions: [
                    .writeToPackageDirectory(
                        reason: "Creates Sources/<Name>Source and Tests/<Name>SourceTests, edits Package.swift and SourceRegistry.swift")
                ]),
            dependencies: ["feedagg-scaffold"]),

        .testTarget(
            name: "FeedCoreTests", dependencies: ["FeedCore", "FeedaggTesting", "CurlHTTP", "LoopbackServer", "FeedReplay"],
            swiftSettings: strict),
        .testTarget(
            name: "CurlHTTPTests", dependencies: ["CurlHTTP", "FeedCore", "FeedaggTesting", "LoopbackServer"],
            swiftSettings: strict),
        .testTarget(name: "FeedSearchTests", dependencies: ["FeedSearch"], swiftSettings: strict),
        .testTarget(name: "FeedConfigTests", dependencies: ["FeedConfig", "FeedCore", "FeedaggTesting"], swiftSettings: strict),
        .testTarget(
            name: "SourceTests",
            dependencies: ["GitHubSource", "PhotosSource", "FeedCore", "CurlHTTP", "FeedaggTesting", "FeedReplay"],
            swiftSettings: strict),
        .testTarget(name: "GitHubSourceTests", dependencies: ["GitHubSource", "FeedCore", "FeedaggTesting"], swiftSettings: strict),
        .testTarget(name: "PhotosSourceTests", dependencies: ["PhotosSource", "FeedCore", "FeedaggTesting"], swiftSettings: strict),
        .testTarget(
            name: "HTTPSourceTests",
            dependencies: [
                "HTTPSource", "FeedCore", "FeedConfig", "FeedaggKit", "CurlHTTP", "FeedaggTesting", "LoopbackServer",
            ],
            swiftSettings: strict),
        .testTarget(name: "FeedStoreTests", dependencies: ["FeedStore", "FeedStorage", "FeedCore", "FeedaggTesting"], swiftSettings: strict),
        // One suite run against both store engines (SQLite, and PostgreSQL in a throwaway cluster).
        .testTarget(
            name: "StoreConformanceTests",
            dependencies: [
                "FeedStorage", "FeedStore", postgresStore, "FeedCore", "FeedSearch", "FeedaggTesting", "DeterministicRandom",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "FeedaggTests",
            dependencies: [
                "FeedaggKit", "FeedaggTesting", "LoopbackServer", "FeedStorage", "FeedStore", postgresStore, "FeedCore",
                "CurlHTTP",
            ],
            // Expected Atom and JSON Feed documents, read by path (FEEDAGG_UPDATE_GOLDEN=1 rewrites them).
            exclude: ["Golden"],
            swiftSettings: strict),
        .testTarget(
            name: "FeedaggWebPageTests", dependencies: ["FeedaggWebPage", "FeedaggKit", "FeedCore", "FeedStore"],
            swiftSettings: strict),
        // The page in a real browser (headless Chromium driven by selenium) and the feeds in a real
        // reader (newsboat), both against the real `feedagg serve` over a loopback API.
        .testTarget(
            name: "FeedaggServeBrowserTests",
            dependencies: ["FeedaggTesting", "LoopbackServer", "FeedCore", "CurlHTTP"],
            exclude: ["Browser"],
            swiftSettings: strict),
        .testTarget(
            name: "ScaffoldTests", dependencies: ["FeedaggTesting", "LoopbackServer"],
            // A recorded GitHub releases body, the `--sample` of the end-to-end test (read by path).
            exclude: ["Fixtures"], swiftSettings: strict),
        .testTarget(
            name: "WorkerCoordinationTests",
            dependencies: [
                workerCoordination, "FeedaggTesting",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        // The test harness itself: the throwaway PostgreSQL cluster.
        .testTarget(name: "FeedaggTestingTests", dependencies: ["FeedaggTesting"], swiftSettings: strict),
        .testTarget(
            name: "GitHubStargazersSourceTests",
            dependencies: [
                "GitHubStargazersSource", "GitHubSource", "FeedCore", "FeedaggKit", "FeedaggTesting", "FeedReplay", "CurlHTTP",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "FeedaggServerTests",
            dependencies: ["FeedaggServer", "FeedaggKit", "FeedaggTesting", "FeedCore", "FeedStore", "CurlHTTP", workerCoordination],
            swiftSettings: strict),
        .testTarget(
            name: "WebFeedSourceTests",
            dependencies: ["WebFeedSource", "FeedCore", "FeedaggKit", "FeedaggTesting", "LoopbackServer"],
            exclude: ["Fixtures"],
            swiftSettings: strict),
        .testTarget(
            name: "ExecSourceTests",
            dependencies: ["ExecSource", "FeedCore", "FeedConfig", "FeedaggKit", "FeedaggTesting", "LoopbackServer"],
            swiftSettings: strict),
        // new-source inserts source test targets above this line (keep it)
    ]
)

// libFuzzer targets (Fuzz/Targets/), declared only when FEEDAGG_FUZZ is set, so the normal build
// and test suite never see them. Each is an executable whose `@main` hands its test function to
// libFuzzer's driver (SwiftPM binds `main` to the module's own entry point, not libFuzzer's).
// `make fuzz` (Scripts/fuzz.sh) builds them with
// `FEEDAGG_FUZZ=1 swift build --scratch-path .build-fuzz -Xswiftc -sanitize=fuzzer,address`.
if Context.environment["FEEDAGG_FUZZ"] != nil {
    // Only the fuzzed modules and the fuzzers: no package dependency to resolve, and a plain
    // `swift build` builds every fuzzer.
    let fuzzed: Set<String> = ["CYAML", "CLibXML2", "FeedCore", "FeedConfig", "GitHubSource", "PhotosSource", "WebFeedSource"]
    package.targets.removeAll { !fuzzed.contains($0.name) }
    package.products.removeAll()
    package.dependencies.removeAll()
    let fuzzers: [(name: String, dependencies: [Target.Dependency])] = [
        ("FuzzLinkHeader", ["FuzzSupport", "FeedCore"]),
        ("FuzzYAMLParser", ["FuzzSupport", "FeedConfig", "FeedCore"]),
        ("FuzzFeedsLoader", ["FuzzSupport", "FeedConfig", "FeedCore"]),
        ("FuzzInterpolation", ["FuzzSupport", "FeedConfig", "FeedCore"]),
        ("FuzzGitHubRepos", ["FuzzSupport", "GitHubSource", "FeedCore"]),
        ("FuzzGitHubMembers", ["FuzzSupport", "GitHubSource", "FeedCore"]),
        ("FuzzGitHubGists", ["FuzzSupport", "GitHubSource", "FeedCore"]),
        ("FuzzPhotos500px", ["FuzzSupport", "PhotosSource", "FeedCore"]),
        ("FuzzFeedParser", ["FuzzSupport", "WebFeedSource", "FeedCore"]),
    ]
    package.targets.append(.systemLibrary(name: "CLibFuzzer", path: "Fuzz/Targets/CLibFuzzer"))
    package.targets.append(
        .target(
            name: "FuzzSupport",
            dependencies: ["CLibFuzzer", "FeedCore", "FeedConfig", "GitHubSource", "PhotosSource"],
            path: "Fuzz/Targets/FuzzSupport", swiftSettings: strict))
    for fuzzer in fuzzers {
        package.targets.append(
            .executableTarget(
                name: fuzzer.name, dependencies: fuzzer.dependencies, path: "Fuzz/Targets/\(fuzzer.name)",
                swiftSettings: strict + [.unsafeFlags(["-parse-as-library"])]))
        package.products.append(.executable(name: fuzzer.name, targets: [fuzzer.name]))
    }
}

// The scaffold end-to-end test (Tests/ScaffoldTests) builds a copy of this package to run one
// generated source's tests: FEEDAGG_TEST_TARGETS=WidgetSourceTests keeps only the test targets
// named (comma-separated), so the copy does not compile every other suite again.
if let kept = Context.environment["FEEDAGG_TEST_TARGETS"] {
    let names = Set(kept.split(separator: ",").map(String.init))
    package.targets.removeAll { $0.type == Target.TargetType.test && !names.contains($0.name) }
}
