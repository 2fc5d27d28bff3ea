import FeedaggTesting
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Hostile plugins through the real `feedagg serve`: it starts, answers `/healthz` for its whole
/// run while they run, records each one's failure on its own feed, serves the healthy feed's items,
/// leaves no plugin process behind, and stops cleanly.
@Suite("source: exec: hostile plugins cannot crash or hang feedagg serve")
struct HostileServeCLITests {
    @Test("serve keeps answering while every hostile plugin runs; each feed's error is its own; no survivor")
    func hostilePlugins() async throws {
        let folder = try TemporaryFolder("feedagg-exec-hostile-serve")
        defer {
            HostilePlugins.cleanUp(in: folder)
            folder.remove()
        }
        // `gated` runs until the test opens its gate: /healthz is asked while it runs however
        // slowly this test is scheduled (the hostile plugins themselves end within a second).
        try writeExecutable(
            "gated.sh",
            "#!/bin/sh\ncat >/dev/null\nwhile [ ! -e gate.open ]; do sleep 0.05; done\necho '{\"item\": {\"id\": 1, \"title\": \"gated\"}}'\n",
            in: folder)
        let config = try folder.write(
            "feeds.yaml",
            try HostilePlugins.setUp(in: folder) + "  - { name: gated, source: exec, command: [./gated.sh], timeout: 600 }\n")
        let process = try BackgroundProcess.start(
            try TestBinary.feedagg,
            arguments: ["serve", "--listen", "127.0.0.1:0", "--config", config.path, "--db", folder.path("store.sqlite")],
            environment: TestBinary.cleanEnvironment, currentDirectory: folder.url)
        defer { process.kill() }
        let port = await process.waitForStandardError { line -> Int? in
            guard line.hasPrefix("serving http://127.0.0.1:") else { return nil }
            return URL(string: String(line.dropFirst("serving ".count)))?.port
        }
        let listening = try #require(port, "feedagg serve did not print its address\n\(process.stderr)")

        // Until every feed has been pulled once: /healthz answers each time it is asked, at least
        // three times while `gated` runs; then its gate opens.
        let failing = Set(HostilePlugins.cases.filter { !$0.message.isEmpty }.map(\.name))
        var feeds: [String: [String: Any]] = [:]
        let deadline = ContinuousClock.now + .seconds(120)
        var checksWhileGated = 0
        while ContinuousClock.now < deadline {
            let health = await LoopbackGet.get(port: listening, "/healthz")
            #expect(health?.status == 200, "/healthz while plugins run: \(String(describing: health))\n\(process.stderr)")
            guard !process.hasExited, health?.status == 200 else { break }
            if !FileManager.default.fileExists(atPath: folder.path("gate.open")) {
                checksWhileGated += 1
                if checksWhileGated == 3 { _ = try folder.write("gate.open", "") }
            }
            if let answer = await LoopbackGet.get(port: listening, "/api/feeds"), answer.status == 200,
                let object = try? JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any],
                let list = object["feeds"] as? [[String: Any]]
            {
                feeds = Dictionary(list.map { ($0["name"] as? String ?? "?", $0) }, uniquingKeysWith: { a, _ in a })
                let errored = Set(feeds.filter { $0.value["last_error"] is String }.keys)
                let succeeded = ["good", "quits0", "orphan", "gated"].allSatisfy { feeds[$0]?["last_updated_at"] is String }
                if errored.isSuperset(of: failing) && succeeded { break }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(!process.hasExited, "feedagg serve ended while plugins ran\n\(process.stderr)")
        #expect(checksWhileGated == 3)
        #expect(feeds["gated"]?["last_updated_at"] is String, "gated: \(feeds["gated"] ?? [:])")
        for plugin in HostilePlugins.cases where !plugin.message.isEmpty {
            let error = try #require(feeds[plugin.name]?["last_error"] as? String, "\(plugin.name): \(feeds[plugin.name] ?? [:])")
            #expect(error.hasPrefix("feed '\(plugin.name)': plugin ./\(plugin.name).sh"), "\(error)")
            for part in plugin.message { #expect(error.contains(part), "\(plugin.name): \(error)") }
        }
        for healthy in ["good", "quits0", "orphan"] {
            #expect(feeds[healthy]?["last_error"] is NSNull, "\(healthy): \(feeds[healthy] ?? [:])")
        }
        let items = await LoopbackGet.get(port: listening, "/api/items?limit=50")
        #expect(items?.body.contains("\"good:1\"") == true, "\(String(describing: items))")

        let survivors = await HostilePlugins.survivors(in: folder, timeout: .milliseconds(500))
        #expect(survivors.isEmpty, "plugin processes left running under serve: \(survivors)")

        process.send(SIGTERM)
        let output = try await process.wait(timeout: .seconds(60))
        #expect(output.status == 0 && !output.terminatedBySignal, "\(output.summary)")
        #expect(!output.stderr.contains("Fatal error"), "\(output.summary)")
    }
}
