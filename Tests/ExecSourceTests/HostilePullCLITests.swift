import FeedaggTesting
import Foundation
import Testing

/// Hostile plugins through the real `feedagg pull`: each fails or finishes only its own feed,
/// the healthy feed is printed, the exit status says "some feeds failed", and no plugin process
/// outlives the pull.
@Suite("source: exec: hostile plugins cannot crash, hang or kill feedagg pull")
struct HostilePullCLITests {
    @Test("every hostile plugin beside a healthy one: exit 3, the healthy items, one clear error each, no survivor")
    func hostilePlugins() async throws {
        let folder = try TemporaryFolder("feedagg-exec-hostile")
        defer {
            HostilePlugins.cleanUp(in: folder)
            folder.remove()
        }
        let config = try folder.write("feeds.yaml", try HostilePlugins.setUp(in: folder))
        let started = ContinuousClock.now
        let output = try await TestBinary.runFeedagg(
            ["pull", "--config", config.path, "--db", folder.path("store.sqlite"), "--format", "json"],
            currentDirectory: folder.url, timeout: .seconds(120))
        let elapsed = ContinuousClock.now - started
        #expect(!output.terminatedBySignal, "\(output.summary)")
        #expect(output.status == 3, "3: some feeds failed, the others printed\n\(output.summary)")
        #expect(try ExecPullCLITests.ids(output).sorted() == ["good:1", "orphan:1"], "\(output.summary)")
        #expect(elapsed < .seconds(30), "the pull took \(elapsed)")

        let lines = output.stderr.split(separator: "\n").map(String.init)
        for plugin in HostilePlugins.cases where !plugin.message.isEmpty {
            let line = lines.first { $0.hasPrefix("✗ feed '\(plugin.name)':") }
            let found = try #require(line, "no error for \(plugin.name) in\n\(output.stderr)")
            #expect(found.contains("plugin ./\(plugin.name).sh"), "the command is named: \(found)")
            for part in plugin.message { #expect(found.contains(part), "\(plugin.name): \(found)") }
            #expect(!found.contains("exec.feedagg.invalid"), "\(found)")
            #expect(!found.contains("after "), "retries: 0 — \(found)")
        }
        #expect(!output.stderr.contains("\u{1B}") && !output.stderr.contains("\u{07}"), "control characters reach the terminal")
        for quiet in ["good", "quits0", "orphan"] {
            #expect(!lines.contains { $0.hasPrefix("✗ feed '\(quiet)'") }, "\(quiet) finished: \(output.stderr)")
        }

        let survivors = await HostilePlugins.survivors(in: folder, timeout: .milliseconds(500))
        #expect(survivors.isEmpty, "plugin processes left running: \(survivors)")
        #expect(HostilePlugins.groups(in: folder).count == HostilePlugins.cases.count - 2, "every runnable plugin ran")
    }
}
