import FeedStore
import FeedaggTesting
import Synchronization
import Foundation
import Testing

// Issue 14, item 12: Ctrl-C during a pull. Pages 1–3 of a 10-page feed are served at once, page
// 4 waits (a gate, no timer) until the test has seen the 3 pages saved and sent SIGINT.

@Suite("Ctrl-C during a pull: one line on what was saved, exit 130, the next pull resumes")
struct InterruptCLITests {
    /// Waits (polling the store every 20 ms, at most a minute) until `feed` has `items` staged.
    static func waitForStaged(_ items: Int, feed: String, db: String) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if FileManager.default.fileExists(atPath: db), let store = try? FeedStore.open(path: db) {
                let staged = (try? store.feedSummaries())?.first { $0.name == feed }?.stagedCount ?? 0
                try? store.close()
                if staged >= items { return }
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("\(items) staged items never appeared in \(db)")
    }

    static let savedLine =
        "interrupted: 0/1 feed done; 3 pages (30 items) saved: the next `feedagg pull` resumes where this one stopped"

    @Test("SIGINT: exit 130, one line naming the saved pages; `feeds` counts them; the next pull resumes at page 4")
    func interruptedPull() async throws {
        let api = ReposAPI(count: 100, gatePage: 4)
        let folder = try TemporaryFolder("feedagg-interrupt")
        defer { folder.remove() }
        let db = folder.url.appendingPathComponent("s.sqlite").path
        try await api.serve { base in
            let config = try folder.write(
                "feeds.yaml", reposYAML([("acme", "acme")], base: base, perPage: 10, settings: ["page_concurrency: 1"]))
            let pid = Mutex<Int32>(0)
            async let run = TestBinary.runFeedagg(
                ["pull", "--config", config.path, "--db", db], timeout: .seconds(120),
                started: { child in pid.withLock { $0 = child } })
            try await Self.waitForStaged(30, feed: "acme", db: db)
            _ = kill(pid.withLock { $0 }, SIGINT)
            let output = try await run
            #expect(output.status == 130 && !output.terminatedBySignal, "\(output.summary)")
            #expect(output.stderr.hasSuffix(Self.savedLine + "\n"), "\(output.stderr)")
            #expect(output.stdout.isEmpty)

            let feeds = try await TestBinary.runFeedagg(["feeds", "--config", config.path, "--db", db])
            #expect(feeds.stdout.contains("(+30 saved from an interrupted pull)"), "\(feeds.stdout)")
            #expect(feeds.stdout.contains("the next pull resumes at page 4"), "\(feeds.stdout)")
            let json = try await TestBinary.runFeedagg(["feeds", "--config", config.path, "--db", db, "--format", "json"])
            #expect(json.stdout.contains(#""saved_items_of_interrupted_pull":30"#), "\(json.stdout)")

            api.gate.open()
            let resumed = try await TestBinary.runFeedagg(["pull", "--config", config.path, "--db", db])
            #expect(resumed.status == 0, "\(resumed.summary)")
            #expect(resumed.stderr.contains("resumed at page 4"), "\(resumed.stderr)")
            #expect(resumed.stderr.contains("page 1/5 · 100 items · 20 per page"), "\(resumed.stderr)")
            let requested = api.pagesRequested
            // Pages 1–3 once each, and page 1 once more: the resumed walk's check that the head did not move.
            #expect(requested.filter { $0 <= 3 }.sorted() == [1, 1, 2, 3], "\(requested)")
        }
    }

    @Test("SIGINT on a terminal: the progress line is cleared before the one line")
    func interruptedOnTerminal() async throws {
        let api = ReposAPI(count: 100, gatePage: 4)
        let folder = try TemporaryFolder("feedagg-interrupt-tty")
        defer { folder.remove() }
        let db = folder.url.appendingPathComponent("s.sqlite").path
        try await api.serve { base in
            let config = try folder.write(
                "feeds.yaml", reposYAML([("acme", "acme")], base: base, perPage: 10, settings: ["page_concurrency: 1"]))
            let process = try TerminalProcess.start(
                try TestBinary.feedagg, arguments: ["pull", "--config", config.path, "--db", db],
                environment: TestBinary.cleanEnvironment)
            try await Self.waitForStaged(30, feed: "acme", db: db)
            // The progress line appears after half a second of pulling, and stays while page 4 waits.
            // Page 1's Link rel="last" announces 10 pages: the total is shown.
            let shown = await process.waitForOutput(containing: "pulling: 0/1 feed done · page 3/10 · ")
            #expect(shown, "no progress line: \(process.text.suffix(300).debugDescription)")
            process.send(SIGINT)
            let output = try await process.wait()
            #expect(output.status == 130 && !output.terminatedBySignal, "\(output.summary)")
            let text = output.stdout
            #expect(text.contains("\r\u{1B}[2K" + Self.savedLine), "\(text.suffix(300).debugDescription)")
            let after = try #require(text.range(of: Self.savedLine)).upperBound
            #expect(!text[after...].contains("pulling:"), "no progress after the line")
        }
    }
}
