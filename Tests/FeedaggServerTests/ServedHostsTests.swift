@testable import FeedaggServer
import Testing

// Which Host headers name the server, and which origins are its own (issue 25 item 1), down to
// the cases the end-to-end tests cannot reach: port 80, IPv6 literals, wildcard listeners.

@Suite("serve: the names it answers to")
struct ServedHostsTests {
    @Test("a loopback listener answers its loopback names with its port, and nothing else")
    func loopback() throws {
        let hosts = ServedHosts(listen: ListenAddress(host: "127.0.0.1", port: 0), publicURLs: [])
        hosts.bound(to: 8080)
        for host in ["127.0.0.1:8080", "localhost:8080", "LocalHost.:8080", "[::1]:8080"] {
            #expect(hosts.names(host: host), "\(host)")
        }
        for host in [
            "127.0.0.1", "localhost:8081", "attacker.example:8080", "127.0.0.2:8080", "10.0.0.1:8080", "", "a b:8080",
            "user@localhost:8080", "localhost:8080/x", "[::1]", nil, "localhost?:8080", "localhost#:8080",
            "local\\host:8080", "\"localhost\":8080", "<localhost>:8080", "localhost\t:8080", "lócalhost:8080",
            "localhost:8080\u{0}",
        ] as [String?] {
            #expect(!hosts.names(host: host), "\(host ?? "nil")")
        }
    }

    @Test("port 80 may be left out; [::1]:80 is answered and its origins built without a crash")
    func port80() throws {
        let hosts = ServedHosts(listen: ListenAddress(host: "::1", port: 80), publicURLs: [])
        #expect(hosts.names(host: "[::1]:80") && hosts.names(host: "[::1]") && hosts.names(host: "localhost"))
        let origins = SameOriginMiddleware<ServeRequestContext>.ownOrigins(host: "[::1]:80", hosts: hosts)
        #expect(origins == ["http://[::1]:80", "http://[::1]"])
        #expect(SameOriginMiddleware<ServeRequestContext>.ownOrigins(host: "localhost", hosts: hosts).contains("http://localhost"))
    }

    @Test("a wildcard listener answers IP literals with its port (rebinding needs a name), never other names")
    func wildcard() throws {
        let hosts = ServedHosts(listen: ListenAddress(host: "0.0.0.0", port: 8080), publicURLs: [])
        #expect(hosts.names(host: "192.168.1.20:8080") && hosts.names(host: "[fe80::1]:8080") && hosts.names(host: "localhost:8080"))
        #expect(!hosts.names(host: "myhost.lan:8080") && !hosts.names(host: "192.168.1.20:9090"))
    }

    @Test("--public-url names are answered on their own port; bad ones are refused at start")
    func publicURLs() throws {
        let hosts = ServedHosts(
            listen: ListenAddress(host: "127.0.0.1", port: 8080),
            publicURLs: [try PublicOrigin(parsing: "https://Feeds.Example.NET"), try PublicOrigin(parsing: "http://feeds.lan:8000/")])
        #expect(hosts.names(host: "feeds.example.net") && hosts.names(host: "feeds.example.net:443"))
        #expect(hosts.names(host: "feeds.lan:8000") && !hosts.names(host: "feeds.lan"))
        #expect(hosts.publicOrigin(host: "FEEDS.example.net")?.origin == "https://feeds.example.net")
        for bad in ["ftp://x", "https://", "https://x/prefix", "https://u:p@x", "https://x?q=1", "feeds.example.net"] {
            #expect(throws: ServeError.self, "\(bad)") { try PublicOrigin(parsing: bad) }
        }
    }
}
