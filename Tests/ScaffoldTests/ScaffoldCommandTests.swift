import FeedaggTesting
import Foundation
import Testing

// `feedagg-scaffold` (the work behind `swift package new-source`) on a scratch copy of
// Package.swift and SourceRegistry.swift: what it writes, and what it refuses. Fast: no build.

@Suite("new-source scaffold: files, edits and refusals")
struct ScaffoldCommandTests {
    /// A scratch package holding copies of the two files the scaffold edits.
    struct ScratchPackage {
        let root: URL

        init() throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("feedagg-scaffold-\(UUID().uuidString)")
            let registry = root.appendingPathComponent("Sources/FeedaggKit")
            try FileManager.default.createDirectory(at: registry, withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                at: RepositoryPaths.root.appendingPathComponent("Package.swift"),
                to: root.appendingPathComponent("Package.swift"))
            try FileManager.default.copyItem(
                at: RepositoryPaths.root.appendingPathComponent("Sources/FeedaggKit/SourceRegistry.swift"),
                to: registry.appendingPathComponent("SourceRegistry.swift"))
        }

        func text(_ path: String) throws -> String {
            try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
        }

        func exists(_ path: String) -> Bool {
            FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path)
        }

        func scaffold(_ arguments: [String]) async throws -> ProcessOutput {
            try await ChildProcess.run(
                try TestBinary.locate("feedagg-scaffold"), arguments: ["--package", root.path] + arguments,
                timeout: .seconds(60))
        }

        func remove() { try? FileManager.default.removeItem(at: root) }
    }

    @Test("creates the module, its tests and fixture, and wires both targets and the type", arguments: ["link", "page"])
    func creates(pagination: String) async throws {
        let package = try ScratchPackage()
        defer { package.remove() }
        let output = try await package.scaffold(["--name", "Reddit", "--pagination", pagination])
        #expect(output.status == 0, "\(output.summary)")
        #expect(package.exists("Sources/RedditSource/RedditSource.swift"))
        #expect(package.exists("Tests/RedditSourceTests/RedditSourceTests.swift"))
        #expect(package.exists("Tests/RedditSourceTests/Fixtures/reddit-example/001-collections-example-items.json"))
        #expect(package.exists("Tests/RedditSourceTests/Fixtures/reddit-example/002-collections-example-items.json"))

        let manifest = try package.text("Package.swift")
        #expect(manifest.contains(#".target(name: "RedditSource", dependencies: ["FeedCore"], swiftSettings: strict),"#))
        #expect(manifest.contains(#"    "RedditSource","#), "not added to FeedaggKit's source modules")
        #expect(manifest.contains(#"name: "RedditSourceTests","#))
        let registry = try package.text("Sources/FeedaggKit/SourceRegistry.swift")
        #expect(registry.contains("import RedditSource\n"))
        #expect(registry.contains("        RedditSource.self,\n"))

        let source = try package.text("Sources/RedditSource/RedditSource.swift")
        #expect(source.contains(#"typeName: "reddit""#))
        #expect(source.contains(pagination == "link" ? "LinkHeaderPagination" : "PageNumberPagination"))
        #expect(output.stdout.contains("Next steps"))
        #expect(output.stdout.contains("swift test --filter RedditSourceTests"))
    }

    @Test("refuses to overwrite an existing source, and leaves the files as they were")
    func refusesExisting() async throws {
        let package = try ScratchPackage()
        defer { package.remove() }
        let first = try await package.scaffold(["--name", "Widget", "--pagination", "page"])
        #expect(first.status == 0, "\(first.summary)")
        let manifest = try package.text("Package.swift")
        let registry = try package.text("Sources/FeedaggKit/SourceRegistry.swift")

        let again = try await package.scaffold(["--name", "Widget", "--pagination", "link"])
        #expect(again.status == 2)
        #expect(again.stderr.contains("Sources/WidgetSource already exists: refusing to overwrite it"))
        #expect(try package.text("Package.swift") == manifest)
        #expect(try package.text("Sources/FeedaggKit/SourceRegistry.swift") == registry)

        let sameType = try await package.scaffold(["--name", "Gadget", "--type-name", "widget"])
        #expect(sameType.status == 2)
        #expect(sameType.stderr.contains("source type 'widget' already exists"))
        #expect(!package.exists("Sources/GadgetSource"))
    }

    @Test("rejects a name that is not a CamelCase identifier", arguments: ["reddit", "Red-dit", "Réddit", "RedditSource", "9Lives", "", "Feed", "Red dit"])
    func rejectsName(name: String) async throws {
        let package = try ScratchPackage()
        defer { package.remove() }
        let output = try await package.scaffold(["--name", name])
        #expect(output.status == 2, "\(output.summary)")
        #expect(output.stderr.contains("error: --name"))
        #expect(!package.exists("Sources/\(name)Source"))
    }

    @Test("rejects an unknown pagination style and a malformed type name")
    func rejectsOptions() async throws {
        let package = try ScratchPackage()
        defer { package.remove() }
        let style = try await package.scaffold(["--name", "Reddit", "--pagination", "cursor"])
        #expect(style.status == 2)
        #expect(style.stderr.contains("--pagination must be one of link, page, found 'cursor'"))
        let type = try await package.scaffold(["--name", "Reddit", "--type-name", "Reddit.Posts"])
        #expect(type.status == 2)
        #expect(type.stderr.contains("must be lowercase words separated by dots"))
    }

    @Test("fails without touching anything when a marker comment is missing")
    func missingMarker() async throws {
        let package = try ScratchPackage()
        defer { package.remove() }
        let manifestURL = package.root.appendingPathComponent("Package.swift")
        let edited = try package.text("Package.swift").replacingOccurrences(
            of: "// new-source inserts source test targets above this line (keep it)", with: "")
        try Data(edited.utf8).write(to: manifestURL)
        let output = try await package.scaffold(["--name", "Reddit"])
        #expect(output.status == 2)
        #expect(output.stderr.contains("must contain the marker comment '// new-source inserts source test targets above this line (keep it)'"))
        #expect(!package.exists("Sources/RedditSource"))
        #expect(try package.text("Package.swift") == edited)
    }
}
