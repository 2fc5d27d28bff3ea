// swift-tools-version: 6.1
import PackageDescription

/// Strict settings shared by every Swift target.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// The source modules FeedaggKit registers. `swift package new-source` adds to this list.
let sourceModules: [Target.Dependency] = [
    "GitHubSource", "PhotosSource", "HTTPSource",
    "GitHubStargazersSource",
    // new-source: source modules (keep this line)
]

let package = Package(
    name: "feedagg",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "feedagg", targets: ["feedagg"]),
        .executable(name: "feedagg-cpu-bench", targets: ["feedagg-cpu-bench"]),
        .library(name: "FeedCore", targets: ["FeedCore"]),
        .library(name: "FeedaggTesting", targets: ["FeedaggTesting"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
    ],
    targets: [
        // C libraries, wrapped by exactly one Swift target each.
        .systemLibrary(
            name: "CCurl", path: "Sources/CCurl", pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(
            name: "CYAML", path: "Sources/CYAML", pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]),

        // The engine: FeedSource plugin API, item model, pagination, merge. No C, no I/O library.
        .target(name: "FeedCore", swiftSettings: strict),

        // HTTP transport on libcurl's multi interface.
        .target(name: "CurlHTTP", dependencies: ["CCurl", "FeedCore"], swiftSettings: strict),

        // feeds.yaml loader on libyaml.
        .target(name: "FeedConfig", dependencies: ["CYAML", "FeedCore"], swiftSettings: strict),

        // Built-in source modules: each depends on the core only.
        .target(name: "GitHubSource", dependencies: ["FeedCore"], swiftSettings: strict),
        .target(name: "PhotosSource", dependencies: ["FeedCore"], swiftSettings: strict),
        // Declarative sources (`source: http`): URL template, pagination and fields from feeds.yaml.
        .target(name: "HTTPSource", dependencies: ["FeedCore"], swiftSettings: strict),
        // Source modules added with `swift package new-source` go above this line.
        .target(name: "GitHubStargazersSource", dependencies: ["FeedCore"], swiftSettings: strict),
        // new-source: source targets (keep this line)

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

        // SQLite store: items, HTTP cache validators, pull state (GRDB).
        .target(
            name: "FeedStore",
            dependencies: ["FeedCore", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: strict),

        // Application layer: source registry, pull orchestration, rendering, exit codes.
        .target(
            name: "FeedaggKit",
            dependencies: ["FeedCore", "CurlHTTP", "FeedConfig", "FeedReplay", "FeedStore"] + sourceModules,
            swiftSettings: strict),

        // The thin command-line executable.
        .executableTarget(
            name: "feedagg",
            dependencies: [
                "FeedaggKit", "FeedStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict),

        // CPU benchmark (`make bench-cpu`): decode + map + merge of 100,000+ items from page files
        // through the built-in sources, items/s per stage and peak RSS.
        .executableTarget(
            name: "feedagg-cpu-bench", dependencies: ["FeedCore", "GitHubSource", "PhotosSource"],
            swiftSettings: strict),

        // Test support: the bench server launcher, fixture helpers, loud test doubles.
        .target(
            name: "FeedaggTesting",
            dependencies: ["FeedCore", "LoopbackServer", "FeedReplay"],
            swiftSettings: strict),

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

        .testTarget(name: "FeedCoreTests", dependencies: ["FeedCore", "FeedaggTesting"], swiftSettings: strict),
        .testTarget(
            name: "CurlHTTPTests", dependencies: ["CurlHTTP", "FeedCore", "FeedaggTesting", "LoopbackServer"],
            swiftSettings: strict),
        .testTarget(name: "FeedConfigTests", dependencies: ["FeedConfig", "FeedCore"], swiftSettings: strict),
        .testTarget(
            name: "SourceTests",
            dependencies: ["GitHubSource", "PhotosSource", "FeedCore", "CurlHTTP", "FeedaggTesting", "FeedReplay"],
            swiftSettings: strict),
        .testTarget(
            name: "HTTPSourceTests",
            dependencies: [
                "HTTPSource", "FeedCore", "FeedConfig", "FeedaggKit", "CurlHTTP", "FeedaggTesting", "LoopbackServer",
            ],
            swiftSettings: strict),
        .testTarget(name: "FeedStoreTests", dependencies: ["FeedStore", "FeedCore"], swiftSettings: strict),
        .testTarget(
            name: "FeedaggTests",
            dependencies: ["FeedaggKit", "FeedaggTesting", "LoopbackServer", "FeedStore", "FeedCore", "CurlHTTP"],
            swiftSettings: strict),
        .testTarget(
            name: "ScaffoldTests", dependencies: ["FeedaggTesting"], swiftSettings: strict),
        // Test targets of source modules added with `swift package new-source` go above this line.
        .testTarget(
            name: "GitHubStargazersSourceTests",
            dependencies: ["GitHubStargazersSource", "FeedCore", "FeedaggKit", "FeedaggTesting", "FeedReplay", "CurlHTTP"],
            swiftSettings: strict),
        // new-source: test targets (keep this line)
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
    let fuzzed: Set<String> = ["CYAML", "FeedCore", "FeedConfig", "GitHubSource", "PhotosSource"]
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
