import FeedaggTesting
import Foundation
import Testing

// The whole `new-source` story on a copy of this package: run the command plugin exactly as a
// user does, build, run the generated tests, and see the new type in `feedagg sources` and
// usable from feeds.yaml. The copy takes the resolved dependencies along and stays in a fixed
// temporary folder between runs: its first build compiles everything it needs (SwiftPM reuses no
// compiled product across paths), later ones only what changed.
//
// Slow (minutes, it compiles the package in the copy): FEEDAGG_SKIP_SCAFFOLD_E2E=1 skips it.

@Suite("new-source end to end: plugin → swift build → generated tests → feedagg sources")
struct ScaffoldEndToEndTests {
    static let skipVariable = "FEEDAGG_SKIP_SCAFFOLD_E2E"
    /// Skipped with the switch set, except in CI (a CI run never skips it).
    static var enabled: Bool { TestPrerequisites.runs(needing: ProcessInfo.processInfo.environment[skipVariable] != "1") }

    /// The environment of the nested SwiftPM runs: ours, without what only makes sense for this run.
    static var environment: [String: String] {
        var environment = TestBinary.cleanEnvironment
        for name in environment.keys where name.hasPrefix("SWIFTPM_") || name.hasPrefix("XCTest") {
            environment[name] = nil
        }
        return environment
    }

    /// coreutils' `nice`, which runs the copy's build at the lowest CPU priority.
    static let nice = URL(fileURLWithPath: "/usr/bin/nice")

    /// `swift` from the PATH.
    static func swift() throws -> URL {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent("swift")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw SwiftNotFound(path: path)
    }

    /// Runs `command` in `directory`, failing the test with its output when it does not succeed.
    @discardableResult
    static func run(
        _ executable: URL, _ arguments: [String], in directory: URL, adding extra: [String: String] = [:]
    ) async throws -> ProcessOutput {
        let start = ContinuousClock.now
        let output = try await ChildProcess.run(
            executable, arguments: arguments, environment: environment.merging(extra) { $1 }, currentDirectory: directory,
            timeout: .seconds(1_800))
        let command = ([executable.lastPathComponent] + arguments).joined(separator: " ")
        print("scaffold e2e: `\(command)` took \(ContinuousClock.now - start)")
        try #require(output.status == 0 && !output.terminatedBySignal, "`\(command)` failed: \(output.summary)")
        return output
    }

    /// `$TMPDIR/feedagg-scaffold-e2e-<hash of the package root>/`: kept between runs, so the
    /// copy's `.build` makes the next run's build incremental (and SwiftPM's lock files beside it
    /// do not pile up). One run at a time per package root.
    static var workDirectory: URL {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in RepositoryPaths.root.standardizedFileURL.path.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return FileManager.default.temporaryDirectory.appendingPathComponent(
            "feedagg-scaffold-e2e-" + String(hash, radix: 16))
    }

    /// Copies the package to `destination`: everything but `.git`, `.build` and other scratch
    /// folders (`.build-*`, `.build_*`, `.swiftpm`), modification times kept. A copy left by an
    /// earlier run keeps its own `.build` (its next build is incremental) and gets everything else
    /// afresh; a first copy takes only the resolved dependencies from this package's `.build`
    /// (`checkouts`, `repositories`, `workspace-state.json`): compiled products are of no use at
    /// another path, where every command line differs and SwiftPM rebuilds them all.
    static func copyPackage(to destination: URL) async throws {
        let fileManager = FileManager.default
        let root = RepositoryPaths.root
        let scratch = destination.appendingPathComponent(".build")
        let reuse = fileManager.fileExists(atPath: scratch.appendingPathComponent("build.db").path)
        if reuse {
            for entry in try fileManager.contentsOfDirectory(atPath: destination.path) where entry != ".build" {
                try fileManager.removeItem(at: destination.appendingPathComponent(entry))
            }
        } else {
            try? fileManager.removeItem(at: destination)
            try fileManager.createDirectory(at: scratch, withIntermediateDirectories: true)
        }
        let entries = try fileManager.contentsOfDirectory(atPath: root.path).filter { name in
            name != ".git" && !name.hasPrefix(".build") && name != ".swiftpm"
        }
        let cp = URL(fileURLWithPath: "/bin/cp")
        try await run(cp, ["-a"] + entries.map { root.appendingPathComponent($0).path } + [destination.path], in: destination)
        guard !reuse else { return }
        let resolved = ["checkouts", "repositories", "workspace-state.json"].map { root.appendingPathComponent(".build/\($0)").path }
            .filter { fileManager.fileExists(atPath: $0) }
        if !resolved.isEmpty { try await run(cp, ["-a"] + resolved + [scratch.path], in: destination) }
    }

    @Test(
        "new-source Widget (page) and GitHubReleases (--api github --sample): build, tests pass, re-recorded too, feedagg lists them",
        .enabled(if: enabled, "\(skipVariable)=1"), .timeLimit(.minutes(45)))
    func newSourceEndToEnd() async throws {
        let started = ContinuousClock.now
        let work = Self.workDirectory
        let package = work.appendingPathComponent("feedagg")
        try await Self.copyPackage(to: package)
        let swift = try Self.swift()

        let created = try await Self.run(
            Self.nice,
            ["-n", "19", swift.path, "package", "--allow-writing-to-package-directory", "new-source", "--name", "Widget", "--pagination", "page"],
            in: package)
        #expect(created.stdout.contains("Created source type 'widget' (WidgetSource, page pagination)"), "\(created.summary)")
        #expect(created.stdout.contains("Next steps"))
        for path in [
            "Sources/WidgetSource/WidgetSource.swift", "Tests/WidgetSourceTests/WidgetSourceTests.swift",
            "Tests/WidgetSourceTests/Fixtures/widget-example/001-collections-example-items.json",
        ] {
            #expect(FileManager.default.fileExists(atPath: package.appendingPathComponent(path).path), "no \(path)")
        }

        // On an existing API module, its DTO drafted from a recorded GitHub releases body.
        let sample = package.appendingPathComponent("Tests/ScaffoldTests/Fixtures/github-releases-sample.json")
        let releases = try await Self.run(
            Self.nice,
            ["-n", "19", swift.path, "package", "--allow-writing-to-package-directory", "new-source", "--name", "GitHubReleases",
             "--type-name", "github.releases", "--api", "github", "--sample", sample.path],
            in: package)
        #expect(releases.stdout.contains("Created source type 'github.releases' (GitHubReleasesSource, link pagination)"), "\(releases.summary)")
        try Self.expectBuiltOnGitHubAPI(package)

        // A second run refuses, and changes nothing.
        let manifest = try String(contentsOf: package.appendingPathComponent("Package.swift"), encoding: .utf8)
        let again = try await ChildProcess.run(
            swift, arguments: ["package", "--allow-writing-to-package-directory", "new-source", "--name", "Widget"],
            environment: Self.environment, currentDirectory: package, timeout: .seconds(600))
        #expect(again.status != 0)
        #expect((again.stdout + again.stderr).contains("already exists: refusing to overwrite it"), "\(again.summary)")
        #expect(try String(contentsOf: package.appendingPathComponent("Package.swift"), encoding: .utf8) == manifest)

        // At the lowest CPU priority: this compiles the copy (minutes on 2 cores) while the rest of
        // the suite runs, and the tests that wait on servers must not wait on it. Two things this
        // test does not need are left out of the copy's build, which would otherwise take twice as
        // long: the default PostgreSQL trait (a new source does not touch the store; postgres-nio
        // brings two BoringSSL builds), and every test target but the generated one
        // (FEEDAGG_TEST_TARGETS, read by Package.swift). The index store stays on: SwiftPM on Linux
        // discovers the tests through it (`--disable-index-store` fails the build).
        // FeedaggTests too: its registry-dependent suites must pass with the new types, unedited.
        let onlyWidgetTests = ["FEEDAGG_TEST_TARGETS": "WidgetSourceTests,GitHubReleasesSourceTests,FeedaggTests"]
        try await Self.run(
            Self.nice, ["-n", "19", swift.path, "build", "--build-tests", "--disable-default-traits"], in: package,
            adding: onlyWidgetTests)
        let tests = try await Self.run(
            swift, ["test", "--skip-build", "--disable-default-traits", "--filter", "WidgetSourceTests|GitHubReleasesSourceTests"],
            in: package, adding: onlyWidgetTests)
        let testOutput = tests.stdout + tests.stderr
        #expect(testOutput.contains("Suite \"widget: recorded fixture through ReplayServer + CurlClient + FeedEngine\" passed"), "\(tests.summary)")
        #expect(testOutput.contains("Suite \"github.releases: recorded fixture through ReplayServer + CurlClient + FeedEngine\" passed"), "\(tests.summary)")
        #expect(testOutput.contains("with 10 tests in 2 suites passed"), "\(tests.summary)")

        // The suites that derive the source types from the registry, with the new types present.
        let registryTests = try await Self.run(
            swift,
            ["test", "--skip-build", "--disable-default-traits", "--filter",
             "FirstStepsTests|CLIFirstStepsTests|CLIEndToEndTests/sourcesListsEveryType"],
            in: package, adding: onlyWidgetTests)
        #expect((registryTests.stdout + registryTests.stderr).contains("tests in 3 suites passed"), "\(registryTests.summary)")

        // Re-recorded with a non-default per_page, the generated tests pass unedited.
        try await Self.recordReleases(in: package, work: work)
        let rerun = try await Self.run(
            swift, ["test", "--skip-build", "--disable-default-traits", "--filter", "GitHubReleasesSourceTests"], in: package,
            adding: onlyWidgetTests)
        #expect((rerun.stdout + rerun.stderr).contains("with 5 tests in 1 suite passed"), "\(rerun.summary)")

        let feedagg = package.appendingPathComponent(".build/debug/feedagg")
        let sources = try await Self.run(feedagg, ["sources"], in: package)
        #expect(sources.stdout.contains("widget: items of a Widget collection"), "\(sources.summary)")
        #expect(sources.stdout.contains("collection (string, required)"))

        // feeds.yaml can use it with no other edit.
        let config = work.appendingPathComponent("widgets.yaml")
        try Data("feeds:\n  - name: widgets\n    source: widget\n    collection: example\n".utf8).write(to: config)
        try await Self.run(feedagg, ["validate", "--config", config.path], in: package)

        // Built without the PostgreSQL trait, feedagg says so when given a PostgreSQL URL (exit 5,
        // the store's), and never shows the password.
        let postgres = try await ChildProcess.run(
            feedagg, arguments: ["show", "--config", config.path, "--db", "postgres://widget:s3cret-pw@127.0.0.1:1/widgets"],
            environment: Self.environment, currentDirectory: package, timeout: .seconds(60))
        #expect(postgres.status == 5, "\(postgres.summary)")
        #expect(postgres.stderr.contains("built without PostgreSQL"), "\(postgres.summary)")
        #expect(!(postgres.stdout + postgres.stderr).contains("s3cret-pw"), "\(postgres.summary)")
        print("scaffold e2e: total \(ContinuousClock.now - started)")
    }
}

extension ScaffoldEndToEndTests {
    /// The `--api github --sample` source uses GitHubAPI and the sample's keys, not a made-up API.
    static func expectBuiltOnGitHubAPI(_ package: URL) throws {
        let source = try String(
            contentsOf: package.appendingPathComponent("Sources/GitHubReleasesSource/GitHubReleasesSource.swift"), encoding: .utf8)
        for fragment in [
            "import GitHubSource", "GitHubAPI.descriptor(", "GitHubAPI.pagination", "GitHubAPI.requestHeaders",
            "GitHubAPI.credentialHeaders(token)", #"/repos/\(GitHubAPI.segment(owner))/\(GitHubAPI.segment(repo))/releases"#,
            #".field("tag_name", \.tagName)"#, "var name: String?", "dto.author.feedAuthor",
            #"ISO8601.timestamp(dto.publishedAt, at: "\(path).published_at")"#, "ItemText.nonEmpty(dto.htmlURL)",
        ] {
            #expect(source.contains(fragment), "no `\(fragment)` in the generated source:\n\(source)")
        }
        for madeUp in ["githubreleases.example", "GITHUBRELEASES_TOKEN", "collection"] {
            #expect(!source.contains(madeUp), "the generated source still has the made-up API's `\(madeUp)`")
        }
        let manifest = try String(contentsOf: package.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(manifest.contains(#".target(name: "GitHubReleasesSource", dependencies: ["FeedCore", "GitHubSource"]"#))
        #expect(manifest.contains(#""GitHubReleasesSource", "GitHubSource", "FeedCore", "FeedaggKit""#))
    }

    /// `feedagg record` of a `github.releases` feed with `per_page: 2` from ``ReleasesStandIn``
    /// over the generated fixture folder: three pages and a feed.json saying `per_page` 2.
    static func recordReleases(in package: URL, work: URL) async throws {
        let fixture = package.appendingPathComponent("Tests/GitHubReleasesSourceTests/Fixtures/github-releases-example")
        try FileManager.default.removeItem(at: fixture)
        let config = work.appendingPathComponent("releases.yaml")
        try Data(
            "feeds:\n  - name: swift-releases\n    source: github.releases\n    owner: apple\n    repo: swift\n    per_page: 2\n".utf8
        ).write(to: config)
        let server = try await ReleasesStandIn.start()
        do {
            try await run(
                package.appendingPathComponent(".build/debug/feedagg"),
                ["record", "--config", config.path, "--feed", "swift-releases", "--out", fixture.path, "--base-url", server.baseURL],
                in: package)
        } catch {
            try await server.shutdown()
            throw error
        }
        try await server.shutdown()
        let files = try FileManager.default.contentsOfDirectory(atPath: fixture.path).sorted()
        #expect(files.filter { $0 != "feed.json" }.count == 3, "\(files)")
        let feed = try String(contentsOf: fixture.appendingPathComponent("feed.json"), encoding: .utf8)
        #expect(feed.contains(#""per_page" : "2""#), "\(feed)")
        #expect(feed.contains(#""name" : "swift-releases""#), "\(feed)")
    }
}

/// `swift` is not on the PATH.
struct SwiftNotFound: Error, CustomStringConvertible {
    var path: String
    var description: String { "swift is not on the PATH (\(path))" }
}
