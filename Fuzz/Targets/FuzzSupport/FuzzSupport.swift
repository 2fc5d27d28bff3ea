import CLibFuzzer
public import FeedCore
public import FeedConfig
public import Foundation
import GitHubSource
import PhotosSource

/// What the libFuzzer targets share: the built-in descriptors, sources built from a feeds.yaml
/// declaration the way the CLI builds them, and fuzz bytes as a fetched page.
public enum FuzzSupport {
    /// Runs libFuzzer's driver on `test` with the process's arguments (`-max_total_time=N`,
    /// corpus directories, …) and exits with its status.
    public static func run(_ test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, test))
    }

    /// The built-in source types (what `SourceRegistry.builtIn` registers).
    public static let sourceTypes: [any FeedSource.Type] = [
        GitHubReposSource.self, GitHubMembersSource.self, GitHubGistsSource.self, FiveHundredPxSource.self,
    ]

    /// The built-in descriptors, as the loader receives them.
    public static var descriptors: [SourceDescriptor] { sourceTypes.map { $0.descriptor } }

    /// The feed declared by `yaml` (one feed), built like `SourceRegistry.makeFeed` does.
    ///
    /// A harness calls this once, on a constant declaration: a failure there is a harness bug.
    public static func source<S: FeedSource>(_ type: S.Type, _ yaml: String) -> S {
        do {
            let document = try FeedsLoader.parse(
                text: yaml, path: "fuzz.yaml", sources: descriptors, environment: [:])
            guard let declaration = document.feeds.first else { preconditionFailure("harness: no feed in \(yaml)") }
            guard let built = try makeSource(declaration) as? S else { preconditionFailure("harness: wrong source type") }
            return built
        } catch {
            preconditionFailure("harness: \(error)")
        }
    }

    /// Builds the source of `declaration` with its base URL, page size and page limit.
    public static func makeSource(_ declaration: FeedDeclaration) throws -> any FeedSource {
        guard let type = sourceTypes.first(where: { $0.descriptor.typeName == declaration.sourceType }) else {
            throw ConfigError("unknown source type '\(declaration.sourceType)'", at: declaration.location)
        }
        let descriptor = type.descriptor
        let parameters = declaration.parameters
        guard let baseURL = try parameters.url("base_url") ?? URL(string: descriptor.defaultBaseURL) else {
            throw ConfigError("no usable base URL", at: declaration.location)
        }
        let pageSize = try parameters.integer("per_page", in: 1...descriptor.maxPageSize) ?? descriptor.defaultPageSize
        let maxPages = try parameters.integer("max_pages", in: 1...1_000_000)
        let context = FeedContext(
            name: declaration.name, baseURL: baseURL, pageSize: pageSize, maxPages: maxPages)
        return try type.init(feed: context, parameters: parameters)
    }

    /// `input` as the body of a `200 OK` JSON response to `url`.
    public static func page(
        _ input: UnsafeBufferPointer<UInt8>, url: URL, contentType: String = "application/json; charset=utf-8"
    ) -> FetchedPage {
        let body = Data(buffer: input)
        return FetchedPage(
            number: 1, url: url,
            response: HTTPResponse(status: 200, headers: ["Content-Type": contentType], body: body, url: url))
    }

    /// The page decoders' test body: `input` as a `200` JSON body to `url` through
    /// `source.decodePage`, every decoded field touched, then the source's pagination on the result.
    /// A decoder may only throw ``PageDecodeError``; anything else is a finding.
    public static func decodeAndPaginate(
        _ source: some FeedSource, _ data: UnsafePointer<UInt8>?, _ size: Int, url: URL, pageSize: Int
    ) -> CInt {
        let page = self.page(UnsafeBufferPointer(start: data, count: size), url: url)
        let decoded: DecodedPage
        do {
            decoded = try source.decodePage(page)
        } catch let error as PageDecodeError {
            _ = error.description
            return 0
        } catch {
            preconditionFailure("decodePage threw a non-PageDecodeError: \(error)")
        }
        _ = consume(decoded)
        let outcome = PageOutcome(
            number: 1, url: url, headers: page.response.headers, totals: decoded.totals,
            itemCount: decoded.items.count, pageSize: pageSize)
        _ = source.pagination.nextPage(after: outcome)
        _ = source.pagination.remainingPages(after: outcome)
        return 0
    }

    /// Touches every field of decoded items, so lazy work and string bridging run too.
    public static func consume(_ page: DecodedPage) -> Int {
        var total = page.totals.map { ($0.currentPage ?? 0) &+ ($0.totalPages ?? 0) &+ ($0.totalItems ?? 0) } ?? 0
        for item in page.items {
            total &+= item.id.utf8.count &+ item.title.utf8.count &+ (item.summary?.utf8.count ?? 0)
            total &+= (item.url?.utf8.count ?? 0) &+ (item.imageURL?.utf8.count ?? 0)
            total &+= (item.author?.name.utf8.count ?? 0) &+ (item.raw?.count ?? 0)
            total &+= item.sortDate.map { Int(truncatingIfNeeded: $0.timeIntervalSince1970.bitPattern) } ?? 0
        }
        return total
    }
}
