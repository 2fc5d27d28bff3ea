import FeedCore
import Foundation

/// The source conformance checks, run against a plugin executable (`feedagg plugin check`):
/// what `FeedSourceConformance` checks for a Swift source, in terms of the exec protocol.
///
/// 1. page 1 runs: exit 0 within the timeout, every line valid (``ExecLines``);
/// 2. item ids are non-empty and unique across the pages walked;
/// 3. page 1 run twice gives the same item ids (a plugin must be a function of its request);
/// 4. `next` cursors are followed (at most `maxPages`) and never repeat (no cycle);
/// 5. when page 1 printed an `etag`, page 1 asked again with it answers `not_modified` or the same
///    items.
public enum ExecPluginCheck {
    /// What a check found: the problems (empty when the plugin conforms) and what was walked.
    public struct Report: Sendable {
        /// Every rule the plugin broke, one sentence each.
        public var violations: [String] = []
        /// Pages run (page 1's repeat and the validator probe not counted).
        public var pages = 0
        /// Items seen on those pages.
        public var items = 0
    }

    /// Runs the checks on `plugin`, following at most `maxPages` pages.
    public static func check(_ plugin: ExecPlugin, maxPages: Int = 5) async -> Report {
        var report = Report()
        func run(_ label: String, cursor: String?, etag: String? = nil) async -> (page: DecodedPage, raw: Data)? {
            let input = plugin.request(page: cursor == nil ? 1 : nil, cursor: cursor, etag: etag, lastModified: nil)
            let result: ExecRunner.Run
            do {
                result = try await ExecRunner.run(plugin, input: input)
            } catch {
                report.violations.append("\(label): \(error.detail(plugin))")
                return nil
            }
            guard result.status == 0, !result.signaled else {
                report.violations.append("\(label): \(ExecTransport.exitDetail(result, errors: plugin.sanitized(result.errors)))")
                return nil
            }
            do {
                return (try ExecLines.decode(result.output, feedName: plugin.feedName, secrets: plugin.secrets), result.output)
            } catch {
                report.violations.append("\(label): \(error.description)")
                return nil
            }
        }

        guard let first = await run("page 1", cursor: nil) else { return report }
        var seen = Set<String>()
        var cursors = Set<String>()
        var page = first.page
        var number = 1
        while true {
            report.pages += 1
            report.items += page.items.count
            for item in page.items where !seen.insert(item.id).inserted {
                report.violations.append("page \(number): item id '\(item.id)' was already listed")
            }
            guard let next = page.nextCursor, !next.isEmpty, number < maxPages else { break }
            guard cursors.insert(next).inserted else {
                report.violations.append("page \(number): cursor '\(next)' was handed back twice (a pagination cycle)")
                break
            }
            number += 1
            guard let following = await run("page \(number)", cursor: next) else { break }
            page = following.page
        }
        if let again = await run("page 1 again", cursor: nil), again.page.items.map(\.id) != first.page.items.map(\.id) {
            report.violations.append("page 1 run twice listed different items: the output must depend on the request only")
        }
        let etag = ExecLines.control(in: first.raw).etag
        if let etag, let probe = await run("page 1 with etag \(etag)", cursor: nil, etag: etag) {
            if !ExecLines.control(in: probe.raw).notModified, probe.page.items.map(\.id) != first.page.items.map(\.id) {
                report.violations.append("page 1 with its own etag neither answered not_modified nor listed the same items")
            }
        }
        if report.items == 0 { report.violations.append("the plugin listed no item: nothing was checked") }
        // Ids and cursors are quoted from the plugin's output: its secrets are not.
        report.violations = report.violations.map { plugin.secrets.redact($0) }
        return report
    }
}
