import FeedaggTesting
import Foundation
import Testing

// The whole `new-source` story on a copy of this package: run the command plugin exactly as a
// user does, build, run the generated tests, and see the new type in `feedagg sources` and
// usable from feeds.yaml. The copy takes `.build` along (timestamps kept), so the build is
// incremental as far as SwiftPM allows for a package at a new path.
//
// Slow (minutes, it compiles the package in the copy): FEEDAGG_SKIP_SCAFFOLD_E2E=1 skips it.

@Suite("new-source end to end: plugin → swift build → generated tests → feedagg sources")
struct ScaffoldEndToEndTests {
    static let skipVariable = "FEEDAGG_SKIP_SCAFFOLD_E2E"
    static var enabled: Bool { ProcessInfo.processInfo.environment[skipVariable] != "1" }

    /// The environment of the nested SwiftPM runs: ours, without what only makes sense for this run.
    static var environment: [String: String] {
        var environment = TestBinary.cleanEnvironment
        for name in environment.keys where name.hasPrefix("SWIFTPM_") || name.hasPrefix("XCTest") {
            environment[name] = nil
        }
        return environment
    }

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
    static func run(_ executable: URL, _ arguments: [String], in directory: URL) async throws -> ProcessOutput {
        let start = ContinuousClock.now
        let output = try await ChildProcess.run(
            executable, arguments: arguments, environment: environment, currentDirectory: directory,
            timeout: .seconds(1_800))
        let command = ([executable.lastPathComponent] + arguments).joined(separator: " ")
        print("scaffold e2e: `\(command)` took \(ContinuousClock.now - start)")
        try #require(output.status == 0 && !output.terminatedBySignal, "`\(command)` failed: \(output.summary)")
        return output
    }

    /// Copies the package to `destination`: everything but `.git` and other scratch folders
    /// (`.build-*`, `.build_*`), with `.build` (modification times kept, module cache dropped:
    /// it records absolute paths).
    static func copyPackage(to destination: URL) async throws {
        try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
        let root = RepositoryPaths.root
        let entries = try FileManager.default.contentsOfDirectory(atPath: root.path).filter { name in
            name != ".git" && !name.hasPrefix(".build-") && !name.hasPrefix(".build_") && name != ".swiftpm"
        }
        try await run(
            URL(fileURLWithPath: "/bin/cp"), ["-a"] + entries.map { root.appendingPathComponent($0).path } + [destination.path],
            in: destination)
        let scratch = destination.appendingPathComponent(".build")
        for triple in (try? FileManager.default.contentsOfDirectory(atPath: scratch.path)) ?? [] {
            for configuration in ["debug", "release"] {
                try? FileManager.default.removeItem(
                    at: scratch.appendingPathComponent("\(triple)/\(configuration)/ModuleCache"))
            }
        }
    }

    @Test(
        "swift package new-source --name Widget --pagination page: builds, its tests pass, feedagg lists it",
        .enabled(if: enabled, "\(skipVariable)=1"), .timeLimit(.minutes(30)))
    func newSourceEndToEnd() async throws {
        let started = ContinuousClock.now
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("feedagg-e2e-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let package = work.appendingPathComponent("feedagg")
        try await Self.copyPackage(to: package)
        let swift = try Self.swift()

        let created = try await Self.run(
            swift, ["package", "--allow-writing-to-package-directory", "new-source", "--name", "Widget", "--pagination", "page"],
            in: package)
        #expect(created.stdout.contains("Created source type 'widget' (WidgetSource, page pagination)"), "\(created.summary)")
        #expect(created.stdout.contains("Next steps"))
        for path in [
            "Sources/WidgetSource/WidgetSource.swift", "Tests/WidgetSourceTests/WidgetSourceTests.swift",
            "Tests/WidgetSourceTests/Fixtures/widget-example/001-collections-example-items.json",
        ] {
            #expect(FileManager.default.fileExists(atPath: package.appendingPathComponent(path).path), "no \(path)")
        }

        // A second run refuses, and changes nothing.
        let manifest = try String(contentsOf: package.appendingPathComponent("Package.swift"), encoding: .utf8)
        let again = try await ChildProcess.run(
            swift, arguments: ["package", "--allow-writing-to-package-directory", "new-source", "--name", "Widget"],
            environment: Self.environment, currentDirectory: package, timeout: .seconds(600))
        #expect(again.status != 0)
        #expect((again.stdout + again.stderr).contains("already exists: refusing to overwrite it"), "\(again.summary)")
        #expect(try String(contentsOf: package.appendingPathComponent("Package.swift"), encoding: .utf8) == manifest)

        try await Self.run(swift, ["build", "--build-tests"], in: package)
        let tests = try await Self.run(swift, ["test", "--skip-build", "--filter", "WidgetSourceTests"], in: package)
        let testOutput = tests.stdout + tests.stderr
        #expect(testOutput.contains("Suite \"widget: recorded fixture through ReplayServer + CurlClient + FeedEngine\" passed"), "\(tests.summary)")
        #expect(testOutput.contains("with 5 tests in 1 suite passed"), "\(tests.summary)")

        let feedagg = package.appendingPathComponent(".build/debug/feedagg")
        let sources = try await Self.run(feedagg, ["sources"], in: package)
        #expect(sources.stdout.contains("widget: items of a Widget collection"), "\(sources.summary)")
        #expect(sources.stdout.contains("collection (string, required)"))

        // feeds.yaml can use it with no other edit.
        let config = work.appendingPathComponent("widgets.yaml")
        try Data("feeds:\n  - name: widgets\n    source: widget\n    collection: example\n".utf8).write(to: config)
        try await Self.run(feedagg, ["validate", "--config", config.path], in: package)
        print("scaffold e2e: total \(ContinuousClock.now - started)")
    }
}

/// `swift` is not on the PATH.
struct SwiftNotFound: Error, CustomStringConvertible {
    var path: String
    var description: String { "swift is not on the PATH (\(path))" }
}
