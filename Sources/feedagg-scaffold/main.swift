import Foundation

// feedagg-scaffold: the work behind `swift package new-source` (Plugins/NewSourcePlugin).
// Writes Sources/<Name>Source/, Tests/<Name>SourceTests/ with a recorded fixture, and adds both
// targets to Package.swift and the type to SourceRegistry.builtIn, at their marker comments.

let usage = """
    usage: swift package --allow-writing-to-package-directory new-source --name NAME [--pagination link|page] [--type-name TYPE]
             [--api API] [--sample FILE]

      --name NAME          CamelCase name: Reddit makes the target RedditSource and the type RedditSource
      --pagination STYLE   link (RFC 8288 Link headers, the default) or page (?page=N, totals in the body)
      --type-name TYPE     the `source:` value in feeds.yaml (default: the name in lowercase, e.g. reddit)
      --api API            build on an existing API module: \(APIModule.registered.keys.sorted().joined(separator: ", "))
                           (github: GitHubSource's GitHubAPI descriptor, headers, token and pagination;
                           owner and repo parameters; the endpoint /repos/{owner}/{repo}/<last word of TYPE>)
      --sample FILE        a recorded JSON response body (or `feedagg record`'s output folder): drafts the
                           item DTO and the item mapping from its keys, and the generated fixture from its items
      --package DIR        the package root (the plugin passes it)
    """

/// Standard error, for diagnostics.
func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// Parses `arguments` into a request; throws a message for anything unexpected.
func parse(_ arguments: [String]) throws -> ScaffoldRequest? {
    var options: [String: String] = [:]
    var index = 0
    while index < arguments.count {
        let argument = arguments[index]
        if argument == "--help" || argument == "-h" { return nil }
        var key = argument
        var value: String?
        if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
            key = String(argument[..<equals])
            value = String(argument[argument.index(after: equals)...])
        }
        guard ["--name", "--pagination", "--type-name", "--package", "--api", "--sample"].contains(key) else {
            throw ScaffoldError("unknown argument '\(argument)'\n\(usage)")
        }
        if value == nil {
            index += 1
            guard index < arguments.count else { throw ScaffoldError("\(key) needs a value\n\(usage)") }
            value = arguments[index]
        }
        guard options[key] == nil else { throw ScaffoldError("\(key) is given twice") }
        options[key] = value
        index += 1
    }
    guard let name = options["--name"] else { throw ScaffoldError("--name is required\n\(usage)") }
    let style = options["--pagination"] ?? "link"
    guard let pagination = PaginationChoice(rawValue: style) else {
        throw ScaffoldError(
            "--pagination must be one of \(PaginationChoice.allCases.map(\.rawValue).joined(separator: ", ")), found '\(style)'")
    }
    let typeName = options["--type-name"] ?? ScaffoldRequest.defaultTypeName(for: name)
    try ScaffoldRequest.validate(name: name, typeName: typeName)
    let package = URL(fileURLWithPath: options["--package"] ?? FileManager.default.currentDirectoryPath)
    var api: APIModule?
    if let key = options["--api"] {
        guard let module = APIModule.registered[key] else {
            throw ScaffoldError(
                "--api must be one of \(APIModule.registered.keys.sorted().joined(separator: ", ")), found '\(key)'")
        }
        guard pagination == .link else {
            throw ScaffoldError("--api \(key) pages as its module does (Link headers): leave out --pagination \(style)")
        }
        api = module
    }
    let sample = options["--sample"].map { path in
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }
    return ScaffoldRequest(name: name, typeName: typeName, pagination: pagination, package: package, api: api, sample: sample)
}

do {
    guard let request = try parse(Array(CommandLine.arguments.dropFirst())) else {
        print(usage)
        exit(0)
    }
    let created = try Scaffold(request: request).run()
    print("Created source type '\(request.typeName)' (\(request.module), \(request.pagination.rawValue) pagination):")
    for file in created { print("  \(file)") }
    let api = request.api ?? APIModule.madeUp(name: request.name, pagination: request.pagination)
    let example = SourceTemplate(request: request, api: api, draft: ItemDraft(fields: [], skipped: [], elements: []))
        .exampleLines.map { "       " + $0 }.joined(separator: "\n")
    print(
        """

        Next steps:
          1. swift build && swift test --filter \(request.testModule)   # the generated tests pass as they are
          2. Edit Sources/\(request.module)/\(request.module).swift: the descriptor (summary, parameters,
             defaultBaseURL, page sizes), the endpoint in init(feed:parameters:), \(request.name)ItemDTO and item(_:raw:path:).
          3. Record real exchanges (credentials are scrubbed; feed.json keeps the feed's parameters):
               feedagg record --config my-feeds.yaml --feed NAME --out Tests/\(request.testModule)/Fixtures/\(request.fixtureName)
             The generated tests read that folder (feed.json, the recorded pages): no test edit.
          4. Use it in feeds.yaml (this is the example `feedagg init` writes):
        \(example)
             and check `feedagg sources` lists it.
        See the FeedCore article "Writing a source module" (Sources/FeedCore/FeedCore.docc/WritingASource.md).
        """)
} catch let error as ScaffoldError {
    printError("error: \(error.description)")
    exit(2)
} catch {
    printError("error: \(error)")
    exit(1)
}
