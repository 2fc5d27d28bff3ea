import FeedaggTesting
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Plugins that misbehave in every way a plugin can, each beside a healthy one, for the suites
/// that run them through `feedagg pull` and `feedagg serve`.
///
/// Every plugin that runs first writes its process group id (`$$`: a plugin leads its own
/// session) to `<name>.pgid`, so a test can check that nothing of it survives the run.
enum HostilePlugins {
    /// One misbehaving feed: its name, its script (`nil`: the file is made otherwise), the YAML
    /// keys it adds, and what its error must say (empty for a feed that finishes).
    struct Case: Sendable {
        var name: String
        var script: String?
        var keys = ""
        var message: [String]
    }

    /// A request line larger than a pipe's buffer, so writing it to a plugin that exits without
    /// reading fails with EPIPE every time, not only when the plugin is fast.
    static let bigParameter = String(repeating: "p", count: 256 << 10)

    static let cases: [Case] = [
        Case(
            name: "quits0", script: "#!/bin/sh\necho $$ > quits0.pgid\nexit 0\n",
            keys: ", params: { pad: \(bigParameter) }", message: []),
        Case(
            name: "quits7", script: "#!/bin/sh\necho $$ > quits7.pgid\necho 'no input read' >&2\nexit 7\n",
            keys: ", params: { pad: \(bigParameter) }", message: ["the plugin exited with status 7; stderr: no input read"]),
        Case(
            name: "linger", script: "#!/bin/sh\necho $$ > linger.pgid\nexec >&- 2>&- <&-\nsleep 600\n",
            keys: ", timeout: 1", message: ["the plugin ran longer than its timeout of 1.0 seconds and was killed"]),
        Case(
            name: "silent", script: "#!/bin/sh\necho $$ > silent.pgid\nsleep 600\n",
            keys: ", timeout: 1", message: ["the plugin ran longer than its timeout of 1.0 seconds and was killed"]),
        Case(
            name: "flood", script: "#!/bin/sh\necho $$ > flood.pgid\nwhile :; do printf 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'; done\n",
            keys: ", max_output_bytes: 65536", message: ["the plugin wrote more than 65536 bytes of output for one page and was killed"]),
        Case(
            name: "binary",
            script: "#!/bin/sh\necho $$ > binary.pgid\ncat >/dev/null\nprintf '\\377\\376\\033[2J\\007\\001{\"item\": \\n'\n",
            message: ["malformed JSON", "at line 1"]),
        Case(
            name: "orphan",
            script: """
                #!/bin/sh
                echo $$ > orphan.pgid
                sleep 600 &
                cat >/dev/null
                echo '{"item": {"id": 1, "title": "left a child behind"}}'
                exit 0

                """,
            message: []),
        Case(name: "kill9", script: "#!/bin/sh\necho $$ > kill9.pgid\nkill -9 $$\n", message: ["the plugin was killed by signal 9"]),
        Case(name: "segv", script: "#!/bin/sh\necho $$ > segv.pgid\nkill -SEGV $$\n", message: ["the plugin was killed by signal 11"]),
        Case(name: "noexec", script: nil, message: ["not executable (permission denied)"]),
        Case(name: "missing", script: nil, message: ["not found"]),
    ]

    /// The healthy plugin every hostile one runs beside.
    static let good = "#!/bin/sh\ncat >/dev/null\necho '{\"item\": {\"id\": 1, \"title\": \"healthy\"}}'\n"

    /// Writes every plugin into `folder` and returns the feeds.yaml text (no retries).
    static func setUp(in folder: TemporaryFolder) throws -> String {
        try writeExecutable("good.sh", good, in: folder)
        var lines = ["settings: { retries: 0 }", "feeds:", "  - { name: good, source: exec, command: [./good.sh] }"]
        for plugin in cases {
            if let script = plugin.script { try writeExecutable("\(plugin.name).sh", script, in: folder) }
            if plugin.name == "noexec" {
                try writeExecutable("noexec.sh", "#!/bin/sh\necho never\n", in: folder)
                chmod(folder.path("noexec.sh"), 0o644)
            }
            lines.append("  - { name: \(plugin.name), source: exec, command: [./\(plugin.name).sh]\(plugin.keys) }")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The process groups the plugins recorded in `folder`, by feed.
    static func groups(in folder: TemporaryFolder) -> [String: pid_t] {
        var groups: [String: pid_t] = [:]
        for plugin in cases {
            guard let text = try? String(contentsOfFile: folder.path("\(plugin.name).pgid"), encoding: .utf8),
                let id = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
            else { continue }
            groups[plugin.name] = id
        }
        return groups
    }

    /// The live processes (not zombies) of process group `group`, from `/proc`.
    static func members(of group: pid_t) -> [pid_t] {
        if kill(-group, 0) != 0 && errno == ESRCH { return [] }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            // After "comm)": state, ppid, pgrp.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 2, fields[0] != "Z", fields[0] != "X", pid_t(fields[2]) == group else { return nil }
            return pid
        }
    }

    /// Waits up to `timeout` for every group in `folder` to be gone; returns the ones left.
    static func survivors(in folder: TemporaryFolder, timeout: Duration = .seconds(2)) async -> [String: [pid_t]] {
        let deadline = ContinuousClock.now + timeout
        while true {
            var left: [String: [pid_t]] = [:]
            for (name, group) in groups(in: folder) {
                let members = members(of: group)
                if !members.isEmpty { left[name] = members }
            }
            if left.isEmpty || ContinuousClock.now >= deadline { return left }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Kills whatever a failed test left running (so a broken build does not leave 600 s sleeps).
    static func cleanUp(in folder: TemporaryFolder) {
        for group in groups(in: folder).values where group > 1 { kill(-group, SIGKILL) }
    }
}
