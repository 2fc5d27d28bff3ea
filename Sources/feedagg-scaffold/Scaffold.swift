import Foundation

/// The pagination a generated source starts with.
enum PaginationChoice: String, CaseIterable {
    /// RFC 8288 `Link` headers (`rel="next"`, `rel="last"`), the page size as `per_page`.
    case link
    /// `?page=N&per_page=M`, with the page count in the body.
    case page
}

/// A request to add a source module, validated.
struct ScaffoldRequest {
    /// CamelCase name: `Reddit` makes `RedditSource` and `RedditSourceTests`.
    var name: String
    /// The `source:` value in feeds.yaml.
    var typeName: String
    /// `--pagination`: the strategy the generated source starts with (`link` unless given).
    var pagination: PaginationChoice
    /// `--package`: the folder holding Package.swift, which the scaffold edits.
    var package: URL
    /// `--api`: the API module the source builds on (``APIModule/registered``), if any.
    var api: APIModule?
    /// `--sample`: a recorded response body (or `feedagg record` folder) to draft the DTO from.
    var sample: String?

    var module: String { "\(name)Source" }
    /// The endpoint's last path segment: the type name's last word (`github.releases` → `releases`).
    var slug: String { typeName.split(separator: ".").last.map(String.init) ?? name.lowercased() }
    /// The options as given, for the generated doc comment.
    var commandLine: String {
        var words = ["--name \(name)", "--pagination \(pagination.rawValue)", "--type-name \(typeName)"]
        if let key = api?.key { words.append("--api \(key)") }
        if let sample { words.append("--sample \(URL(fileURLWithPath: sample).lastPathComponent)") }
        return words.joined(separator: " ")
    }
    var testModule: String { "\(name)SourceTests" }
    var fixtureName: String { "\(typeName.replacingOccurrences(of: ".", with: "-"))-example" }

    /// `Reddit` → `reddit`, `GitHubStars` → `githubstars`.
    static func defaultTypeName(for name: String) -> String { name.lowercased() }

    /// Checks the name and type name; throws a message saying what is wrong.
    static func validate(name: String, typeName: String) throws {
        guard let first = name.unicodeScalars.first, ("A"..."Z").contains(first),
            name.unicodeScalars.allSatisfy({ ("A"..."Z").contains($0) || ("a"..."z").contains($0) || ("0"..."9").contains($0) })
        else {
            throw ScaffoldError(
                "--name '\(name)' is not a CamelCase identifier: start with an uppercase ASCII letter, then letters and digits only (e.g. Reddit, HackerNews)")
        }
        guard !name.hasSuffix("Source") else {
            throw ScaffoldError("--name '\(name)' ends with 'Source', which is added for you: use --name \(name.dropLast(6))")
        }
        guard name != "Feed" else {
            throw ScaffoldError("--name 'Feed' would make a type named FeedSource, the protocol it conforms to: choose another name")
        }
        guard name.count <= 60 else { throw ScaffoldError("--name '\(name)' is longer than 60 characters") }
        let words = typeName.split(separator: ".", omittingEmptySubsequences: false)
        guard !typeName.isEmpty,
            words.allSatisfy({ word in
                !word.isEmpty
                    && word.unicodeScalars.allSatisfy {
                        ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-"
                    }
            })
        else {
            throw ScaffoldError(
                "--type-name '\(typeName)' must be lowercase words separated by dots (e.g. reddit, github.stargazers)")
        }
    }
}

/// A scaffolding problem, printed as `error: …`.
struct ScaffoldError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Marker comments the scaffold inserts above, each saying so, so that the inserted lines and the
/// ones already there read right whichever side of them they sit. Each must occur exactly once in
/// its file.
enum Marker {
    static let sourceTargets = "// new-source inserts source module targets above this line (keep it)"
    static let sourceModules = "// new-source inserts source module names above this line (keep it)"
    static let testTargets = "// new-source inserts source test targets above this line (keep it)"
    static let imports = "// new-source inserts imports above this line (keep it)"
    static let types = "// new-source inserts source types above this line (keep it)"
}

/// Writes a new source module, its tests and fixture, and wires it into the package.
struct Scaffold {
    let request: ScaffoldRequest
    let fileManager = FileManager.default

    private var root: URL { request.package }
    private var packageFile: URL { root.appendingPathComponent("Package.swift") }
    private var registryFile: URL { root.appendingPathComponent("Sources/FeedaggKit/SourceRegistry.swift") }
    private var sourceDirectory: URL { root.appendingPathComponent("Sources/\(request.module)") }
    private var testDirectory: URL { root.appendingPathComponent("Tests/\(request.testModule)") }
    private var fixtureDirectory: URL { testDirectory.appendingPathComponent("Fixtures/\(request.fixtureName)") }

    /// Everything that would be written, checked before anything is: nothing is left half done.
    func run() throws -> [String] {
        var package = try read(packageFile)
        var registry = try read(registryFile)
        try refuseExisting(package: package)

        let api = request.api ?? APIModule.madeUp(name: request.name, pagination: request.pagination)
        let apiDependency = api.module.map { ", \"\($0)\"" } ?? ""
        package = try insert(
            #"        .target(name: "\#(request.module)", dependencies: ["FeedCore"\#(apiDependency)], swiftSettings: strict),"#,
            before: Marker.sourceTargets, in: package, file: "Package.swift")
        package = try insert(#"    "\#(request.module)","#, before: Marker.sourceModules, in: package, file: "Package.swift")
        package = try insert(
            """
                    .testTarget(
                        name: "\(request.testModule)",
                        dependencies: [
                            "\(request.module)"\(apiDependency), "FeedCore", "FeedaggKit", "FeedaggTesting", "FeedReplay", "CurlHTTP",
                        ],
                        exclude: ["Fixtures"], swiftSettings: strict),
            """, before: Marker.testTargets, in: package, file: "Package.swift")
        registry = try insert("import \(request.module)", before: Marker.imports, in: registry, file: "SourceRegistry.swift")
        registry = try insert(
            "        \(request.module).self,", before: Marker.types, in: registry, file: "SourceRegistry.swift")

        let draft = try Self.draft(request)
        let files: [(URL, String)] = [
            (sourceDirectory.appendingPathComponent("\(request.module).swift"),
             SourceTemplate(request: request, api: api, draft: draft).text),
            (testDirectory.appendingPathComponent("\(request.module)Tests.swift"), TestsTemplate(request: request).text),
        ] + FixtureTemplate(request: request, api: api, draft: draft).files.map {
            (fixtureDirectory.appendingPathComponent($0.name), $0.text)
        }
        for (url, text) in files {
            try fileManager.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url, options: .withoutOverwriting)
        }
        try Data(package.utf8).write(to: packageFile, options: .atomic)
        try Data(registry.utf8).write(to: registryFile, options: .atomic)
        return files.map { relative($0.0) } + ["Package.swift (edited)", "Sources/FeedaggKit/SourceRegistry.swift (edited)"]
    }

    /// The DTO drafted from `--sample`, or from the made-up items.
    static func draft(_ request: ScaffoldRequest) throws -> ItemDraft {
        if let sample = request.sample {
            let (values, encoded) = try SampleLoader.load(sample)
            return try ItemDraft.draft(from: values, encoded: encoded, typeNamePrefix: request.name)
        }
        let encoded = FixtureTemplate.madeUpElements(name: request.name).map { Data($0.utf8) }
        let values = try encoded.map { data -> [String: JSONValue] in
            guard case .object(let object) = try JSONDecoder().decode(JSONValue.self, from: data) else { return [:] }
            return object
        }
        return try ItemDraft.draft(from: values, encoded: encoded, typeNamePrefix: request.name)
    }

    private func relative(_ url: URL) -> String {
        let path = url.standardizedFileURL.path
        let prefix = root.standardizedFileURL.path + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }

    private func read(_ url: URL) throws -> String {
        guard let data = fileManager.contents(atPath: url.path) else {
            throw ScaffoldError("cannot read \(url.path): is --package the feedagg package root?")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Refuses to overwrite a module, test target or type name that exists.
    private func refuseExisting(package: String) throws {
        for directory in [sourceDirectory, testDirectory] where fileManager.fileExists(atPath: directory.path) {
            throw ScaffoldError("\(relative(directory)) already exists: refusing to overwrite it (choose another --name)")
        }
        for name in [request.module, request.testModule] where package.contains("\"\(name)\"") {
            throw ScaffoldError("Package.swift already declares '\(name)': refusing to add it twice")
        }
        let sources = root.appendingPathComponent("Sources")
        let needle = "typeName: \"\(request.typeName)\""
        if let enumerator = fileManager.enumerator(at: sources, includingPropertiesForKeys: nil) {
            for case let file as URL in enumerator where file.pathExtension == "swift" {
                if let text = try? String(contentsOf: file, encoding: .utf8), text.contains(needle) {
                    throw ScaffoldError(
                        "source type '\(request.typeName)' already exists in \(relative(file)): choose another --type-name")
                }
            }
        }
    }

    /// `text` with `line` inserted on its own line before the line holding `marker`.
    private func insert(_ line: String, before marker: String, in text: String, file: String) throws -> String {
        var lines = text.components(separatedBy: "\n")
        let indices = lines.indices.filter { lines[$0].contains(marker) }
        guard indices.count == 1, let index = indices.first else {
            throw ScaffoldError(
                "\(file) must contain the marker comment '\(marker)' exactly once (found \(indices.count)); restore it where new entries go")
        }
        lines.insert(line, at: index)
        return lines.joined(separator: "\n")
    }
}
