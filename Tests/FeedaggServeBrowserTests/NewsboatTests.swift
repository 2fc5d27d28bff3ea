import FeedaggTesting
import Foundation
import Testing

// Issue 12, a real feed reader: Debian's newsboat reads `feedagg serve`'s /stream.atom
// (`newsboat -x reload`, then `-x print-unread`), with its own HOME, urls, config and cache in a
// temporary folder. Between the two reloads the reader "reads" every entry (newsboat's own
// `-I` import of read GUIDs), the API gains an item and the server refreshes (`POST /api/refresh`,
// then its status until done): the second reload shows exactly that item as unread.

/// Runs newsboat in `folder` (its files there, HOME there too) with `arguments`.
private func newsboat(_ arguments: [String], in folder: TemporaryFolder) async throws -> ProcessOutput {
    let binary = URL(fileURLWithPath: "/usr/bin/newsboat")
    guard FileManager.default.isExecutableFile(atPath: binary.path) else {
        throw BrowserTestError("/usr/bin/newsboat is missing: `make deps` (or `make test`) installs it")
    }
    var environment = TestBinary.cleanEnvironment
    environment["HOME"] = folder.url.path
    environment["XDG_CONFIG_HOME"] = folder.path(".config")
    environment["XDG_DATA_HOME"] = folder.path(".local/share")
    return try await ChildProcess.run(
        binary, arguments: ["-u", folder.path("urls"), "-c", folder.path("cache.db"), "-C", folder.path("config")] + arguments,
        environment: environment, currentDirectory: folder.url, timeout: .seconds(120))
}

/// `N` of newsboat's "N unread articles".
private func unreadCount(_ output: ProcessOutput) throws -> Int {
    let line = output.stdout.split(separator: "\n").first { $0.hasSuffix("unread articles") } ?? ""
    guard let count = Int(line.prefix { $0.isNumber }) else {
        throw BrowserTestError("newsboat -x print-unread printed no count: \(output.summary)")
    }
    return count
}

/// The `<id>` of every `<entry>` of an Atom document, in order.
private func atomEntryIDs(_ atom: String) -> [String] {
    atom.components(separatedBy: "<entry").dropFirst().compactMap { entry in
        guard let start = entry.range(of: "<id>"), let end = entry.range(of: "</id>", range: start.upperBound..<entry.endIndex)
        else { return nil }
        return String(entry[start.upperBound..<end.lowerBound])
    }
}

@Suite("newsboat reads feedagg serve's Atom stream", .serialized)
struct NewsboatTests {
    @Test("newsboat -x reload reads every entry of /stream.atom; after a server refresh only the new item is unread")
    func reloadThenRefresh() async throws {
        let store = try await ServedStore.start(count: 12)
        let reader = try TemporaryFolder("feedagg-newsboat")
        defer { reader.remove() }
        do {
            try await check(store, reader: reader)
        } catch {
            await store.stop()
            throw error
        }
        await store.stop()
    }

    private func check(_ store: ServedStore, reader: TemporaryFolder) async throws {
        let atomURL = store.base + "/stream.atom"
        _ = try reader.write("urls", atomURL + "\n")
        _ = try reader.write("config", "reload-threads 1\n")
        let (status, body) = try await store.request("/stream.atom")
        try #require(status == 200)
        let served = atomEntryIDs(String(decoding: body, as: UTF8.self))
        #expect(served.count == 12, "the Atom stream holds every item: \(served)")

        let reload = try await newsboat(["-x", "reload"], in: reader)
        #expect(reload.status == 0, "\(reload.summary)")
        #expect(!reload.stderr.lowercased().contains("error"), "\(reload.summary)")
        let first = try await newsboat(["-x", "print-unread"], in: reader)
        #expect(try unreadCount(first) == served.count, "newsboat read every entry: \(first.stdout)")

        // The reader reads everything (newsboat imports the GUIDs as read), then the source gains
        // an item and the server pulls it.
        let readList = try reader.write("read.txt", served.joined(separator: "\n") + "\n")
        let imported = try await newsboat(["-I", readList.path], in: reader)
        #expect(imported.status == 0, "\(imported.summary)")
        #expect(try unreadCount(try await newsboat(["-x", "print-unread"], in: reader)) == 0)
        let number = store.api.addNewest(slow: nil)
        try await store.refresh()
        try await store.waitForItems(13, containing: "repos:\(number)")

        let second = try await newsboat(["-x", "reload"], in: reader)
        #expect(second.status == 0, "\(second.summary)")
        let unread = try await newsboat(["-x", "print-unread"], in: reader)
        #expect(try unreadCount(unread) == 1, "only the new item is unread: \(unread.stdout)")
        // Which one: every GUID but the new entry's is in newsboat's list of read articles.
        let exported = reader.path("exported.txt")
        let export = try await newsboat(["-E", exported], in: reader)
        #expect(export.status == 0, "\(export.summary)")
        let read = Set(((try? String(contentsOfFile: exported, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init))
        let (_, newBody) = try await store.request("/stream.atom")
        let now = atomEntryIDs(String(decoding: newBody, as: UTF8.self))
        let unreadIDs = now.filter { !read.contains($0) }
        #expect(unreadIDs.count == 1 && unreadIDs.first?.contains("repos") == true && now.first == unreadIDs.first, "unread: \(unreadIDs)")
    }
}
