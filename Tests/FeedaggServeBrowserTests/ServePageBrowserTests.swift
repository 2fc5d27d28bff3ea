import FeedaggTesting
import Foundation
import Testing

// Issue 12, the page in a real browser: headless Chromium (Debian's chromium + chromium-driver),
// driven by selenium from the virtualenv (`make pytools`), opens `feedagg serve`'s `/` over a store
// pulled from a loopback API. Browser/page_driver.py does the clicking and prints what it saw as
// JSON; this test asserts on it. The tests fail, not skip, when a tool is missing.

/// Where the screenshot goes (the README shows it).
let screenshotPath = RepositoryPaths.root.appendingPathComponent(".build/screenshots/serve.png").path

/// Runs Browser/page_driver.py with `arguments` and returns its JSON report.
func runPageDriver(_ arguments: [String]) async throws -> [String: Any] {
    let python = RepositoryPaths.root.appendingPathComponent(".build/venv/bin/python")
    for tool in [python.path, "/usr/bin/chromium", "/usr/bin/chromedriver"] where !FileManager.default.isExecutableFile(atPath: tool) {
        throw BrowserTestError("\(tool) is missing: `make deps pytools` (or `make test`) installs chromium, chromium-driver and selenium")
    }
    let script = RepositoryPaths.root.appendingPathComponent("Tests/FeedaggServeBrowserTests/Browser/page_driver.py").path
    let output = try await ChildProcess.run(python, arguments: [script] + arguments, timeout: .seconds(300))
    guard output.status == 0, let report = try? JSONSerialization.jsonObject(with: output.standardOutput) as? [String: Any]
    else { throw BrowserTestError("page_driver.py failed: \(output.summary)") }
    return report
}

@Suite("feedagg serve's page in headless Chromium", .serialized)
struct ServePageBrowserTests {
    /// Items per page on `/` and in `/api/items` (the page is opened with `?limit=`).
    static let perPage = 10

    /// Runs `body` against a served store of `count` items, stopping everything however it ends.
    private func withStore(count: Int, _ body: (ServedStore) async throws -> Void) async throws {
        let store = try await ServedStore.start(count: count)
        do {
            try await body(store)
        } catch {
            await store.stop()
            throw error
        }
        await store.stop()
    }

    @Test("scrolled to the end three times: three pages in stream order, no duplicates, the end marked; hostile titles stay text; works without JavaScript")
    func scrollToTheEnd() async throws {
        try await withStore(count: 3 * Self.perPage) { store in
            let expected = try await store.showPagedIDs(perPage: Self.perPage)
            #expect(expected.count == 3 * Self.perPage, "show pages the whole stream: \(expected)")
            let report = try await runPageDriver([
                "--url", store.base + "/?limit=\(Self.perPage)", "--screenshot", screenshotPath, "--scrolls", "3",
            ])
            let context = "driver report: \(report)\nserver output:\n\(store.serve.output.suffix(3000))"
            #expect(report["error"] == nil, "\(context)")

            // JavaScript off: the server-rendered first page, no refresh button, an Older link that
            // leads to the second page.
            let noJS = report["no_js"] as? [String: Any] ?? [:]
            #expect(noJS["first_page"] as? [String] == Array(expected.prefix(Self.perPage)), "no-JS first page: \(noJS)")
            #expect(noJS["refresh_hidden"] as? Bool == true && noJS["older_visible"] as? Bool == true, "\(noJS)")
            #expect((noJS["second_url"] as? String)?.contains("/?after=") == true, "\(noJS)")
            #expect(
                noJS["second_page"] as? [String] == Array(expected.dropFirst(Self.perPage).prefix(Self.perPage)),
                "the Older link's page: \(noJS)")
            #expect(noJS["back_links"] as? [String] == [store.base + "/?limit=\(Self.perPage)"], "\(noJS)")

            // The first page came from the server; three scrolls later the page holds the whole stream.
            #expect(report["per_page"] as? Int == Self.perPage, "\(context)")
            let firstPage = report["first_page"] as? [String] ?? []
            #expect(firstPage == Array(expected.prefix(Self.perPage)), "server-rendered first page: \(firstPage)")
            let ids = report["ids"] as? [String] ?? []
            #expect(ids == expected, "the page after three scrolls, in stream order:\n\(ids)\nshow --format json paged:\n\(expected)")
            #expect(Set(ids).count == ids.count, "duplicates on the page: \(ids)")
            #expect(report["end_visible"] as? Bool == true, "the end is marked: \(context)")
            #expect(report["end_text"] as? String == "You’ve reached the end.")
            #expect((report["loading_shown"] as? Int ?? 0) >= 1, "the loading row showed while a page loaded")
            #expect(report["older_link_hidden"] as? Bool == true, "the script replaces the no-JS Older link")

            // Hostile titles are text, in the server's HTML (item 2) and in app.js's DOM (item 21).
            let injected = report["injected"] as? [String: Any] ?? [:]
            #expect(injected["imgX"] as? Int == 0, "an <img src=x> was injected: \(injected)")
            #expect(injected["scripts"] as? Int == 0, "an inline <script> was injected: \(injected)")
            #expect((injected["handlers"] as? [String])?.isEmpty == true, "event handler attributes: \(injected)")
            #expect(injected["javascriptLinks"] as? Int == 0, "a javascript: or data: URL reached a link: \(injected)")
            let titles = injected["titles"] as? [String] ?? []
            #expect(titles.contains(PageAPI.hostileTitle) && titles.contains(PageAPI.hostileTitleLater), "\(titles)")
            let authors = injected["authors"] as? [String] ?? []
            let summaries = injected["summaries"] as? [String] ?? []
            #expect(authors.filter { $0 == PageAPI.hostileOwner }.count == 2, "hostile owners as text: \(authors)")
            #expect(summaries.filter { $0 == PageAPI.hostileSummary }.count == 2, "hostile summaries as text: \(summaries)")
            let later = ids.firstIndex(of: "repos:\(PageAPI.laterHostile(count: 3 * Self.perPage))") ?? 0
            #expect(later >= Self.perPage, "the second hostile title is on a page app.js built (index \(later))")
            #expect(report["dialogs"] as? Int == 0 && report["alert_open"] as? Bool == false, "no alert ran: \(context)")
            let consoleErrors = (report["console_errors"] as? [String] ?? []).filter { !$0.contains("favicon.ico") }
            #expect(consoleErrors.isEmpty, "browser console errors (CSP violations among them): \(consoleErrors)")

            // Served as the page expects: under a CSP that allows only the server's own script
            // (no inline script), the script and stylesheet as themselves.
            let page = try await store.response("/", accept: "text/html")
            let policy = page.headers["Content-Security-Policy"] ?? ""
            #expect(page.status == 200 && policy.contains("script-src 'self'") && !policy.contains("unsafe-inline"), "CSP: \(policy)")
            #expect(page.headers["Content-Type"]?.hasPrefix("text/html") == true)
            let script = try await store.response("/app.js", accept: "*/*")
            #expect(script.status == 200 && script.headers["Content-Type"]?.contains("javascript") == true)
            #expect(String(decoding: script.body, as: UTF8.self).contains("IntersectionObserver"))
            let stylesheet = try await store.response("/app.css", accept: "*/*")
            #expect(stylesheet.status == 200 && stylesheet.headers["Content-Type"]?.hasPrefix("text/css") == true)

            // The page fits a phone's width; the screenshots exist.
            #expect(report["phone_overflow"] as? Bool == false, "the page scrolls sideways at 390 px")
            #expect(FileManager.default.fileExists(atPath: screenshotPath))
        }
    }

    @Test("the server goes away: scrolling on shows that older items could not be loaded; Try again loads them once it is back")
    func serverDown() async throws {
        try await withStore(count: 3 * Self.perPage) { store in
            let port = try #require(URL(string: store.base)?.port)
            // The driver stops the server under the open page and scrolls; once the page shows the
            // error it creates `restartSignal`, and only then does this test start the server again
            // on the same port (a server back before the page asked for page 2 leaves nothing to
            // fail); the driver then clicks Try again.
            let restartSignal = store.folder.path("restart-the-server")
            async let driven = runPageDriver([
                "--url", store.base + "/?limit=\(Self.perPage)", "--stop-server-pid", String(store.serve.process.pid),
                "--restart-signal", restartSignal,
            ])
            let deadline = ContinuousClock.now + .seconds(90)
            while !(store.serve.process.hasExited && FileManager.default.fileExists(atPath: restartSignal)),
                ContinuousClock.now < deadline
            {
                try await Task.sleep(for: .milliseconds(50))
            }
            let restarted = try await ServeProcess.start(
                ServedStore.serveArguments(store.folder), in: store.folder, listen: "127.0.0.1:\(port)")
            let report: [String: Any]
            do {
                report = try await driven
            } catch {
                await restarted.stop()
                throw error
            }
            await restarted.stop()

            let down = report["server_down"] as? [String: Any] ?? [:]
            let firstPage = down["first_page"] as? [String] ?? []
            #expect(firstPage.count == Self.perPage, "\(down)")
            #expect(down["server_alive"] as? Bool == false, "the server still runs after SIGTERM: \(down)")
            #expect(down["error_visible"] as? Bool == true, "no error row: \(down)")
            #expect((down["error_text"] as? String)?.hasPrefix("Could not load older items") == true, "\(down)")
            #expect(down["retry_buttons"] as? Int == 1, "\(down)")
            #expect(down["loading_hidden"] as? Bool == true && down["end_visible"] as? Bool == false, "\(down)")
            #expect(down["ids"] as? [String] == firstPage, "nothing added or lost while the server was down: \(down)")
            // Try again, with the server back: the next page follows, the error is gone.
            let expected = try await store.showPagedIDs(perPage: Self.perPage)
            let retried = down["ids_after_retry"] as? [String] ?? []
            #expect(retried.count >= 2 * Self.perPage && retried == Array(expected.prefix(retried.count)), "\(retried)")
            #expect(down["error_visible_after_retry"] as? Bool == false, "\(down)")
        }
    }

    @Test("the search box: typed and submitted, the results shareable as /?q=, scrolled to their end; without JavaScript too; a bad query shows its error")
    func searchBox() async throws {
        try await withStore(count: 3 * Self.perPage) { store in
            // Every repo's summary ends "(item N)"; photos have none: more than one page, not all.
            let query = "item -sqlite"
            let expected = try await store.showPagedIDs(perPage: Self.perPage, query: query)
            let everything = try await store.showPagedIDs(perPage: Self.perPage)
            #expect(expected.count > Self.perPage && expected.count < everything.count, "\(expected)")
            let report = try await runPageDriver([
                "--url", store.base + "/?limit=\(Self.perPage)", "--search", query, "--bad-search", "item (",
            ])
            let seen = report["search"] as? [String: Any] ?? [:]
            let context = "driver report: \(report)\nserver output:\n\(store.serve.output.suffix(3000))"
            #expect((seen["before"] as? [String])?.count == Self.perPage, "\(context)")
            #expect(seen["url"] as? String == store.base + "/?q=item+-sqlite&limit=\(Self.perPage)", "\(context)")
            #expect(seen["box_value"] as? String == query)
            #expect((seen["filter_line"] as? String)?.contains("results for \u{201C}item -sqlite\u{201D}") == true, "\(context)")
            #expect(seen["total"] as? String == String(expected.count), "\(context)")
            #expect(seen["first_page"] as? [String] == Array(expected.prefix(Self.perPage)), "server-rendered results: \(context)")
            #expect(seen["ids"] as? [String] == expected, "scrolled to the end, the search's every match in order: \(context)")
            #expect(seen["end_visible"] as? Bool == true, "\(context)")
            let fetched = seen["fetched"] as? [String] ?? []
            #expect(!fetched.isEmpty && fetched.allSatisfy { $0.contains("q=item%20-sqlite") && $0.contains("limit=\(Self.perPage)") }, "the script asks /api/items for the search: \(fetched)")
            let consoleErrors = (seen["console_errors"] as? [String] ?? []).filter { !$0.contains("favicon.ico") }
            #expect(consoleErrors.isEmpty, "\(consoleErrors)")

            // Without JavaScript: the same URL renders the first page, its Older link the second.
            let noJS = seen["no_js"] as? [String: Any] ?? [:]
            #expect(noJS["first_page"] as? [String] == Array(expected.prefix(Self.perPage)), "\(noJS)")
            #expect((noJS["second_url"] as? String)?.contains("q=item%20-sqlite") == true, "\(noJS)")
            #expect(noJS["second_page"] as? [String] == Array(expected.dropFirst(Self.perPage).prefix(Self.perPage)), "\(noJS)")

            // A query that does not parse: the page says why, with the caret, and shows no cards.
            #expect((seen["bad_url"] as? String)?.contains("q=item+%28") == true, "\(context)")
            #expect(seen["bad_error"] as? String == "The search does not parse:\nquery:1:6: error: '(' is never closed\n    item (\n         ^", "\(context)")
            #expect(seen["bad_cards"] as? Int == 0 && seen["bad_box_value"] as? String == "item (", "\(context)")
        }
    }

    @Test("Refresh: an item added on the API appears first; progress shows only after the 0.5 s grace time")
    func refreshControl() async throws {
        try await withStore(count: 12) { store in
            let newID = "repos:1001"
            let report = try await runPageDriver([
                "--url", store.base + "/?limit=\(Self.perPage)", "--scrolls", "0",
                "--screenshot", RepositoryPaths.root.appendingPathComponent(".build/screenshots/serve-refresh.png").path,
                "--add-item-url", store.api.controlURL(store.apiServer), "--new-id", newID,
            ])
            let context = "driver report: \(report)\nserver output:\n\(store.serve.output.suffix(3000))"
            #expect(report["error"] == nil, "\(context)")
            #expect(report["refresh_visible"] as? Bool == true, "the Refresh button shows with JavaScript on")
            #expect(report["refreshed"] as? Bool == true, "the new item never appeared: \(context)")
            let before = report["first_page"] as? [String] ?? []
            let after = report["ids_after_refresh"] as? [String] ?? []
            #expect(after.first == newID, "\(after)")
            #expect(Array(after.dropFirst().prefix(Self.perPage - 1)) == Array(before.prefix(Self.perPage - 1)), "\(after)")
            #expect(Set(after).count == after.count, "duplicates after the refresh: \(after)")
            // After the refresh every card is app.js's: each item's card is the one the server rendered.
            let server = report["cards_server"] as? [String: String] ?? [:]
            let script = report["cards_script"] as? [String: String] ?? [:]
            let common = Set(server.keys).intersection(script.keys)
            #expect(common.count >= Self.perPage - 1, "\(server.keys) / \(script.keys)")
            for id in common.sorted() {
                #expect(server[id] == script[id], "\(id): server card\n\(server[id] ?? "")\napp.js card\n\(script[id] ?? "")")
            }
            // The feeds panel was rebuilt from /api/feeds: same rows and shape, repos one item more and
            // updated later than before.
            let feedsBefore = report["feeds_server"] as? [[String: Any]] ?? []
            let feedsAfter = report["feeds_script"] as? [[String: Any]] ?? []
            #expect(feedsBefore.count == 2 && feedsAfter.count == 2, "\(feedsBefore) / \(feedsAfter)")
            for (old, new) in zip(feedsBefore, feedsAfter) {
                let oldCells = old["cells"] as? [String] ?? []
                let newCells = new["cells"] as? [String] ?? []
                #expect(old["shape"] as? String == new["shape"] as? String, "row shape: \(old) / \(new)")
                #expect(oldCells.prefix(2) == newCells.prefix(2), "\(oldCells) / \(newCells)")
                #expect(newCells.last == "none", "no feed failed: \(newCells)")
                if oldCells.first == "repos" {
                    #expect(Int(newCells[safe: 2] ?? "") == (Int(oldCells[safe: 2] ?? "") ?? -1) + 1, "\(oldCells) / \(newCells)")
                    #expect((new["updated"] as? String ?? "") > (old["updated"] as? String ?? "~"), "\(old) / \(new)")
                }
            }
            // The API answered the refresh's pull 1.5 s late: progress showed, and not before 0.5 s.
            let delays = report["progress_delays_ms"] as? [Double] ?? []
            #expect(!delays.isEmpty, "a slow refresh shows progress: \(context)")
            #expect(delays.allSatisfy { $0 >= 499 }, "progress showed before the grace time: \(delays) ms after the click")
            #expect((report["refresh_status"] as? String)?.hasPrefix("Updated ") == true, "\(context)")
            #expect(report["dialogs"] as? Int == 0 && report["alert_open"] as? Bool == false)
            let consoleErrors = (report["console_errors"] as? [String] ?? []).filter { !$0.contains("favicon.ico") }
            #expect(consoleErrors.isEmpty, "browser console errors: \(consoleErrors)")
            // The server pulled the API (its refresh), not the test.
            #expect(store.api.state.withLock { $0.requests.filter { $0 == "GET /repos" }.count } >= 2)
        }
    }
}

extension Array {
    /// The element at `index`, `nil` past the ends.
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
