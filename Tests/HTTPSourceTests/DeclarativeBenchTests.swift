import FeedCore
import FeedaggKit
import FeedaggTesting
import Foundation
import Testing

/// The YAML of issue 6, verbatim but for the port, beside the built-in equivalents.
func declaredFeeds(port: Int) -> String {
    """
    feeds:
      - name: org1-declared
        source: http
        base_url: http://127.0.0.1:\(port)
        url: "{+base_url}/orgs/org1/repos{?per_page}"
        per_page: 100
        pagination: { style: link }
        items: "$"
        fields: { id: "$.id", title: "$.name", url: "$.html_url", updated: "$.updated_at", author: "$.owner.login" }
      - name: photos-declared
        source: http
        base_url: http://127.0.0.1:\(port)
        url: "{+base_url}/v1/photos{?feature,rpp}"
        feature: editors
        rpp: 100
        pagination: { style: page, page_param: page, total_pages: "$.total_pages" }
        items: "$.photos"
        fields: { id: "$.id", title: "$.name", url: "$.image_url" }
      - name: org1-builtin
        source: github.repos
        org: org1
        per_page: 100
        base_url: http://127.0.0.1:\(port)
      - name: photos-builtin
        source: photos.500px
        feature: editors
        per_page: 100
        base_url: http://127.0.0.1:\(port)

    """
}

/// The part of an id after its source prefix (`github.repos:42` → `42`).
private func bare(_ id: String) -> String {
    String(id[id.index(after: id.lastIndex(of: ":") ?? id.startIndex)...])
}

@Suite(
    "Declarative http source against the bench server", .enabled(if: BenchServer.isAvailable, "\(BenchServer.unavailableReason)"))
struct DeclarativeBenchTests {
    @Test("org1 declared with `source: http` equals github.repos; photos declared equals photos.500px editors")
    func declaredEqualsBuiltIn() async throws {
        let server = try await BenchServer.start(.init(generatedOrgs: 1, reposPerGeneratedOrg: 250, photos: 450))
        defer { server.stop() }
        let report = try await Declared.pull(declaredFeeds(port: server.port))

        let declaredRepos = try Declared.result(report, "org1-declared")
        let builtinRepos = try Declared.result(report, "org1-builtin")
        #expect(builtinRepos.items.count == 250)
        #expect(declaredRepos.items.map { bare($0.id) } == builtinRepos.items.map { bare($0.id) })
        #expect(declaredRepos.items.map(\.id).allSatisfy { $0.hasPrefix("org1-declared:") })
        #expect(declaredRepos.items.map(\.title) == builtinRepos.items.map(\.title))
        #expect(declaredRepos.items.map(\.url) == builtinRepos.items.map(\.url))
        #expect(declaredRepos.items.map(\.updated) == builtinRepos.items.map(\.updated))
        #expect(declaredRepos.items.allSatisfy { $0.updated != nil })
        #expect(declaredRepos.items.map(\.author?.name) == builtinRepos.items.map(\.author?.name))
        #expect(declaredRepos.items.map(\.raw) == builtinRepos.items.map(\.raw), "raw item bytes are kept")
        #expect(declaredRepos.requests == builtinRepos.requests)
        #expect(declaredRepos.pages == 3)

        let declaredPhotos = try Declared.result(report, "photos-declared")
        let builtinPhotos = try Declared.result(report, "photos-builtin")
        #expect(builtinPhotos.items.count == 450)
        #expect(declaredPhotos.items.map { bare($0.id) } == builtinPhotos.items.map { bare($0.id) })
        #expect(declaredPhotos.items.map(\.title) == builtinPhotos.items.map(\.title))
        // The declaration maps image_url to `url`; photos.500px maps it to the image.
        #expect(declaredPhotos.items.map(\.url) == builtinPhotos.items.map(\.imageURL))
        #expect(declaredPhotos.requests == 5, "page 1, then pages 2…5 fanned out from total_pages")
        #expect(declaredPhotos.pages == 5)

        let stats = try await server.stats()
        #expect(stats.byStatus == ["200": stats.requests], "\(stats.byStatus)")
        #expect(stats.requests == report.results.map(\.requests).reduce(0, +))
    }

    @Test("`feedagg sources` material: the http descriptor documents every key")
    func descriptorDocumentsKeys() throws {
        let descriptor = try #require(SourceRegistry.builtIn.type(named: "http")?.descriptor)
        #expect(descriptor.parameters.map(\.name) == [
            "base_url", "url", "pagination", "items", "fields", "headers", "token", "order",
        ])
        #expect(descriptor.additionalParameters != nil)
        for key in ["link", "page", "offset", "cursor", "page_param", "size_param", "total_pages", "total_items",
            "current_page", "offset_param", "limit_param", "total", "cursor_param", "next",
        ] {
            #expect(descriptor.parameters.contains { $0.summary.contains(key) }, "\(key) is not documented")
        }
        for key in ["id", "title", "url", "summary", "author", "author_url", "avatar", "image", "published", "updated", "date_format"] {
            #expect(descriptor.parameters.first { $0.name == "fields" }?.summary.contains(key) == true, "\(key)")
        }
    }
}
