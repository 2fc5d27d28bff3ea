import FeedCore
import FeedaggKit
import FeedaggTesting
import Foundation
import LoopbackServer
import Synchronization
import Testing

// Credentials go to the feed's own origin only; plain http needs an opt-in off loopback.

@Suite("Security: credentials stay on the feed's origin; plain http needs an opt-in")
struct SecurityTests {
    @Test("a redirect and a next link to another origin are followed without the token")
    func crossOriginWithoutCredentials() async throws {
        let other = RequestLog()
        let elsewhere = try await LoopbackHTTPServer.start { request in
            other.record(request)
            return LoopbackResponse(
                status: 200, headers: [("Content-Type", "application/json")],
                text: #"[{"id":2,"name":"two","html_url":"https://github.com/acme/two"}]"#)
        }
        let own = RequestLog()
        let home = try await LoopbackHTTPServer.start { request in
            own.record(request)
            switch request.path {
            case "/orgs/moved/repos":
                return LoopbackResponse(status: 302, headers: [("Location", "\(elsewhere.baseURL)/orgs/moved/repos")])
            default:
                return LoopbackResponse(
                    status: 200,
                    headers: [
                        ("Content-Type", "application/json"),
                        ("Link", "<\(elsewhere.baseURL)/orgs/acme/repos?page=2>; rel=\"next\""),
                    ],
                    text: #"[{"id":1,"name":"one","html_url":"https://github.com/acme/one"}]"#)
            }
        }
        let report = try await pullQuietly(
            """
            defaults:
              token: ${GH}
            feeds:
              - name: paged
                source: github.repos
                org: acme
                base_url: \(home.baseURL)
              - name: moved
                source: github.repos
                org: moved
                base_url: \(home.baseURL)

            """, environment: ["GH": "s3cret-token-42"])
        #expect(report.exitStatus == .success, "\(report.results.compactMap(\.error))")
        #expect(report.results.map(\.items.count) == [2, 1])
        #expect(own.requests.count == 2)
        #expect(own.requests.allSatisfy { $0.header("Authorization") == "Bearer s3cret-token-42" })
        #expect(other.requests.count == 2, "the next page and the redirect target were both fetched")
        #expect(other.requests.allSatisfy { $0.header("Authorization") == nil }, "the token left its origin")
        try await home.shutdown()
        try await elsewhere.shutdown()
    }

    @Test("plain http:// to a non-loopback host is refused unless the feed opts in")
    func insecureHTTPNeedsOptIn() async throws {
        let yaml = """
            feeds:
              - name: remote
                source: github.repos
                org: acme
                base_url: http://api.example.com

            """
        let folder = try TemporaryFolder("feedagg-security")
        defer { folder.remove() }
        let config = try folder.write("feeds.yaml", yaml)
        #expect {
            try Aggregator(environment: [:]).load(configPath: config.path)
        } throws: { error in
            String(describing: error) == [
                "\(config.path):5:15: error: 'base_url' is plain http:// to api.example.com: tokens and data would travel unencrypted",
                "      base_url: http://api.example.com",
                "                ^",
                "  use https://, or set 'allow_insecure_http: true' on the feed if you really mean it",
            ].joined(separator: "\n")
        }
        let optedIn = try folder.write("opted.yaml", yaml + "    allow_insecure_http: true\n")
        #expect(try Aggregator(environment: [:]).load(configPath: optedIn.path).1.count == 1)
        let loopback = try folder.write("loopback.yaml", yaml.replacingOccurrences(of: "api.example.com", with: "127.0.0.1:8765"))
        #expect(try Aggregator(environment: [:]).load(configPath: loopback.path).1.count == 1)
    }
}
