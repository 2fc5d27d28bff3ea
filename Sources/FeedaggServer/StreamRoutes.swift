import FeedaggKit
import FeedCore
import FeedStore
import Hummingbird
import HTTPTypes

/// The read-only routes: the stream as JSON pages, Atom and JSON Feed documents, the feeds'
/// statuses, the web page and the health check.
struct StreamRoutes: Sendable {
    let reader: StreamReader
    /// The names the server answers to, for absolute URLs.
    let hosts: ServedHosts
    /// The source types feeds.yaml may name (for `source=`).
    let sourceTypes: [String]
    /// The scheduler, for each feed's worker and next due time when workers share the schedule.
    var scheduler: PullScheduler? = nil
    /// First pages kept rendered until the store changes.
    var pages = RenderedPages()

    /// Adds the routes to `router`.
    func register(on router: Router<ServeRequestContext>) {
        router.readable("/healthz") { _, _ in
            Self.response(JSON.object([("status", .string("ok"))]).serialized() + "\n", type: MediaTypes.json)
        }
        router.readable("/api/items") { request, _ in await answer { try await items(request) } }
        router.readable("/api/feeds") { _, _ in await answer { try await feeds() } }
        router.readable("/stream.atom") { request, _ in
            await answer { try await document(request, path: "/stream.atom", format: .atom, feed: nil) }
        }
        router.readable("/stream.json") { request, _ in
            await answer { try await document(request, path: "/stream.json", format: .jsonfeed, feed: nil) }
        }
        router.readable("/feeds/:file") { request, context in
            await answer {
                let file = context.parameters.get("file") ?? ""
                let (name, format) = try Self.feedFile(file)
                return try await document(request, path: "/feeds/" + file, format: format, feed: name)
            }
        }
        router.readable("/") { request, _ in await answer { try await page(request) } }
        router.readable("/app.js") { _, _ in
            WebPage.script.map { Self.response($0, type: MediaTypes.javascript) }
                ?? RequestProblem(.notFound, "no script").response
        }
        router.readable("/app.css") { _, _ in
            WebPage.stylesheet.map { Self.response($0, type: MediaTypes.css) }
                ?? RequestProblem(.notFound, "no stylesheet").response
        }
    }

    /// `/api/items`: the JSON page of `show --format json`, with `Link: <…>; rel="next"`.
    func items(_ request: Request) async throws(RequestProblem) -> Response {
        let query = try StreamQuery(request.uri, names: reader.configuration.current.names, sourceTypes: sourceTypes)
        return try await kept(request, firstPage: query.after == nil) { () async throws(RequestProblem) in
            try await renderItems(request, query: query)
        }
    }

    /// The response of `render`, kept in ``pages`` for a first page (no `after`) until the store
    /// changes, and answered from there while it has not (see ``RenderedPages``).
    func kept(
        _ request: Request, firstPage: Bool, render: () async throws(RequestProblem) -> Response
    ) async throws(RequestProblem) -> Response {
        guard firstPage, let version = try await reader.changeVersion() else { return try await render() }
        let key =
            "\(reader.configuration.generation) \(PublicURL(request, hosts: hosts).origin) \(request.uri.path)?\(request.uri.query ?? "")"
        if let page = pages.page(key, version: version) {
            ServerMetrics.recordKeptPage()
            return RenderedPages.response(page)
        }
        let response = try await render()
        var body = ByteBuffer()
        do {
            let collector = BufferCollector()
            try await response.body.write(collector)
            body = collector.buffer
        } catch {
            return response
        }
        let page = RenderedPages.Page(version: version, headers: response.headers, body: body, tag: EntityTag.of(body))
        if response.status == .ok { pages.keep(page, as: key) }
        var rendered = RenderedPages.response(page)
        rendered.status = response.status
        return rendered
    }

    /// ``items(_:)`` rendered from the store.
    func renderItems(_ request: Request, query: StreamQuery) async throws(RequestProblem) -> Response {
        let (page, _) = try await reader.page(query)
        var response = Self.response(page.rendered(.json, next: nil).body, type: MediaTypes.json)
        if let next = page.nextCursor, !page.entries.isEmpty {
            let url = PublicURL(request, hosts: hosts).url("/api/items", query: query.queryString(after: next))
            response.headers[HTTPField.Name.link] = "<\(url)>; rel=\"next\""
        }
        return response
    }

    /// `/api/feeds`: `feedagg feeds --format json`.
    func feeds() async throws(RequestProblem) -> Response {
        var statuses = try await reader.feedStatuses()
        if let schedule = await scheduler?.workerSchedule() {
            for index in statuses.indices { statuses[index].workerSchedule = schedule[statuses[index].name] }
        }
        return Self.response(FeedStatusRenderer.renderServed(statuses), type: MediaTypes.json)
    }

    /// An Atom or JSON Feed document of the stream (`feed` `nil`) or of one feed, linking to itself,
    /// to the web page and to the next, older page.
    func document(_ request: Request, path: String, format: OutputFormat, feed: String?) async throws(RequestProblem)
        -> Response
    {
        let names = reader.configuration.current.names
        var query = try StreamQuery(request.uri, names: names, sourceTypes: sourceTypes)
        if let feed {
            guard names.contains(feed) else {
                throw RequestProblem(.notFound, "no feed named '\(feed)'" + StreamQuery.hint(feed, among: names, noun: "feeds"))
            }
            query.feeds = [feed]
        }
        return try await kept(request, firstPage: query.after == nil) { () async throws(RequestProblem) in
            try await renderDocument(request, path: path, format: format, feed: feed, query: query)
        }
    }

    /// ``document(_:path:format:feed:)`` rendered from the store.
    func renderDocument(_ request: Request, path: String, format: OutputFormat, feed: String?, query: StreamQuery)
        async throws(RequestProblem) -> Response
    {
        let (page, listed) = try await reader.page(query)
        let base = PublicURL(request, hosts: hosts)
        var own = query
        if feed != nil { own.feeds = [] }
        var links = FeedLinks(selfURL: base.url(path, query: own.queryString(after: query.after)), alternateURL: base.url("/"))
        if let next = page.nextCursor, !page.entries.isEmpty {
            links.nextURL = base.url(path, query: own.queryString(after: next))
        }
        let identity = FeedIdentity(feeds: listed, sources: query.sources)
        if format == .atom {
            let body = AtomRenderer.document(page.entries, identity: identity, nextCursor: page.nextCursor, links: links)
            return Self.response(body, type: MediaTypes.atom)
        }
        let body = JSONFeedRenderer.document(page.entries, identity: identity, nextCursor: page.nextCursor, links: links)
        return Self.response(body, type: MediaTypes.jsonFeed)
    }

    /// `/`: the web page of the first page (or the page after `?after=`).
    func page(_ request: Request) async throws(RequestProblem) -> Response {
        let query = try StreamQuery(request.uri, names: reader.configuration.current.names, sourceTypes: sourceTypes)
        let (page, _) = try await reader.page(query)
        let statuses = try await reader.feedStatuses()
        return Self.response(
            WebPage.render(
                entries: page.entries, nextCursor: page.nextCursor, feeds: statuses, query: query,
                totalItems: page.totalItems),
            type: MediaTypes.html)
    }

    /// `name.atom` → (`name`, atom); `name.json` → (`name`, jsonfeed).
    static func feedFile(_ file: String) throws(RequestProblem) -> (String, OutputFormat) {
        if file.hasSuffix(".atom") { return (String(file.dropLast(5)), .atom) }
        if file.hasSuffix(".json") { return (String(file.dropLast(5)), .jsonfeed) }
        throw RequestProblem(.notFound, "a feed's documents are /feeds/NAME.atom and /feeds/NAME.json")
    }

    /// A 200 response of `text`, revalidated on every use (its ETag is added by ``EntityTagMiddleware``).
    static func response(_ text: String, type: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: type, .cacheControl: "no-cache"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}

/// The response of `body`, or of the problem it threw.
func answer(_ body: () async throws -> Response) async -> Response {
    do {
        return try await body()
    } catch let problem as RequestProblem {
        return problem.response
    } catch {
        return RequestProblem(.internalServerError, "internal error").response
    }
}

extension HTTPField.Name {
    /// `Link` (RFC 8288).
    static var link: Self { Self("Link")! }
}

extension Router<ServeRequestContext> {
    /// Registers `handler` for GET and HEAD of `path` (a HEAD answers the GET's headers, ETag
    /// included, without the body: see ``EntityTagMiddleware``).
    @discardableResult
    func readable(
        _ path: RouterPath, use handler: @escaping @Sendable (Request, ServeRequestContext) async throws -> Response
    ) -> Self {
        get(path, use: handler)
        head(path, use: handler)
        return self
    }
}
