import FeedaggKit
import FeedCore
import FeedSearch
import FeedStore
import Hummingbird
import HTTPTypes

/// The read-only routes: the stream as JSON pages, Atom and JSON Feed documents (of the stream, of
/// each feed, of each saved view), the feeds' statuses, the web page and the health check. Every
/// read takes `q` (a search) and applies the configuration's filter rules.
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
        router.readable("/api/feeds") { request, _ in await answer { try await feeds(request) } }
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
        router.readable("/views/:file") { request, context in
            await answer {
                let file = context.parameters.get("file") ?? ""
                let (name, format) = try Self.viewFile(file)
                return try await document(request, path: "/views/" + file, format: format, feed: nil, view: name)
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
        let query = try streamQuery(request)
        return try await kept(request, firstPage: keepsFirstPage(query)) { () async throws(RequestProblem) in
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

    /// The request's ``StreamQuery``, checked against the running configuration (without its `q`
    /// when `search` is false).
    func streamQuery(_ request: Request, search: Bool = true) throws(RequestProblem) -> StreamQuery {
        let current = reader.configuration.current
        return try StreamQuery(
            request.uri, names: current.names, sourceTypes: sourceTypes, views: current.viewNames, search: search)
    }

    /// Whether the answer to `query` may be kept until the store changes (``kept(_:firstPage:render:)``):
    /// a first page, unless the search, the view or the filter rules count ages back from now
    /// (`newer:7d`), whose matches change with the time and not only with the store.
    func keepsFirstPage(_ query: StreamQuery) -> Bool {
        guard query.after == nil else { return false }
        let document = reader.configuration.current.document
        let view = query.view.flatMap { document.view(named: $0)?.query } ?? .everything
        return !(query.query.dependsOnTime || view.dependsOnTime || document.filters.dependsOnTime)
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

    /// `/api/feeds`: `feedagg feeds --format json`, and the saved views: `"views": [{"name",
    /// "query", "atom", "json"}]` (the documents' absolute URLs).
    func feeds(_ request: Request) async throws(RequestProblem) -> Response {
        var statuses = try await reader.feedStatuses()
        if let schedule = await scheduler?.workerSchedule() {
            for index in statuses.indices { statuses[index].workerSchedule = schedule[statuses[index].name] }
        }
        let base = PublicURL(request, hosts: hosts)
        let views = reader.configuration.current.document.views.map { view -> JSON in
            let path = "/views/" + StreamQuery.encoded(view.name)
            return .object([
                ("name", .string(view.name)), ("query", .string(view.text)), ("atom", .string(base.url(path + ".atom"))),
                ("json", .string(base.url(path + ".json"))),
            ])
        }
        return Self.response(FeedStatusRenderer.renderServed(statuses, extra: [("views", .array(views))]), type: MediaTypes.json)
    }

    /// An Atom or JSON Feed document of the stream (`feed` and `view` `nil`), of one feed or of a
    /// saved view, linking to itself, to the web page and to the next, older page.
    func document(
        _ request: Request, path: String, format: OutputFormat, feed: String?, view: String? = nil
    ) async throws(RequestProblem) -> Response {
        let current = reader.configuration.current
        let names = current.names
        var query = try streamQuery(request)
        if let feed {
            guard names.contains(feed) else {
                throw RequestProblem(.notFound, "no feed named '\(feed)'" + StreamQuery.hint(feed, among: names, noun: "feeds"))
            }
            query.feeds = [feed]
        }
        if let view {
            guard current.viewNames.contains(view) else { throw StreamQuery.unknownView(view, among: current.viewNames) }
            query.view = view
        }
        return try await kept(request, firstPage: keepsFirstPage(query)) { () async throws(RequestProblem) in
            try await renderDocument(request, path: path, format: format, feed: feed, view: view, query: query)
        }
    }

    /// ``document(_:path:format:feed:view:)`` rendered from the store.
    func renderDocument(
        _ request: Request, path: String, format: OutputFormat, feed: String?, view: String?, query: StreamQuery
    ) async throws(RequestProblem) -> Response {
        let (page, listed) = try await reader.page(query)
        let base = PublicURL(request, hosts: hosts)
        // The path names the feed or the view: the links' queries do not repeat it.
        var own = query
        if feed != nil { own.feeds = [] }
        if view != nil { own.view = nil }
        var home = query
        (home.limit, home.after) = (StreamQuery.defaultLimit, nil)
        var links = FeedLinks(
            selfURL: base.url(path, query: own.queryString(after: query.after)),
            alternateURL: base.url("/", query: home.queryString(after: nil)))
        if let next = page.nextCursor, !page.entries.isEmpty {
            links.nextURL = base.url(path, query: own.queryString(after: next))
        }
        let identity = FeedIdentity(feeds: listed, sources: query.sources, view: query.view, search: query.search)
        if format == .atom {
            let body = AtomRenderer.document(page.entries, identity: identity, nextCursor: page.nextCursor, links: links)
            return Self.response(body, type: MediaTypes.atom)
        }
        let body = JSONFeedRenderer.document(page.entries, identity: identity, nextCursor: page.nextCursor, links: links)
        return Self.response(body, type: MediaTypes.jsonFeed)
    }

    /// `/`: the web page of the first page (or the page after `?after=`), of the search `?q=` and
    /// the view `?view=` when given. A search that does not parse is answered 400 with the page,
    /// showing the parse error where the stream would be.
    func page(_ request: Request) async throws(RequestProblem) -> Response {
        let views = reader.configuration.current.document.views
        if let text = StreamQuery.search(in: request.uri) {
            do {
                _ = try SearchQuery(parsing: text)
            } catch {
                var query = try streamQuery(request, search: false)
                query.after = nil
                let statuses = try await reader.feedStatuses()
                var response = Self.response(
                    WebPage.render(
                        entries: [], nextCursor: nil, feeds: statuses, query: query, totalItems: nil, views: views,
                        search: text, searchError: error.description),
                    type: MediaTypes.html)
                response.status = .badRequest
                return response
            }
        }
        let query = try streamQuery(request)
        let (page, _) = try await reader.page(query)
        let statuses = try await reader.feedStatuses()
        return Self.response(
            WebPage.render(
                entries: page.entries, nextCursor: page.nextCursor, feeds: statuses, query: query,
                totalItems: page.totalItems, views: views),
            type: MediaTypes.html)
    }

    /// A saved view's document file: `name.atom` → (`name`, atom); `name.json` → (`name`, jsonfeed).
    static func viewFile(_ file: String) throws(RequestProblem) -> (String, OutputFormat) {
        if file.hasSuffix(".atom") { return (String(file.dropLast(5)), .atom) }
        if file.hasSuffix(".json") { return (String(file.dropLast(5)), .jsonfeed) }
        throw RequestProblem(.notFound, "a view's documents are /views/NAME.atom and /views/NAME.json")
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
