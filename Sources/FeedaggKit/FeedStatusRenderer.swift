import FeedConfig
import FeedCore
import FeedStore
public import Foundation

/// Renders `feedagg feeds`.
public enum FeedStatusRenderer {
    /// A table (or JSON with `json`), times in UTC with their age relative to `now`.
    public static func render(_ statuses: [FeedStatus], format: OutputFormat, now: Date = Date()) -> String {
        render(statuses, format: format, now: now, served: false)
    }

    /// The JSON `feedagg serve` answers at `/api/feeds`: ``render(_:format:now:)``'s, less what
    /// belongs to the machine only: `token` says only whether a credential is set (`true`/`false`,
    /// never its variable or file), and there is no `config` and no `plugin_stderr`.
    /// `extra` members follow `feeds` (the server's saved views).
    public static func renderServed(_ statuses: [FeedStatus], extra: [(String, JSON)] = []) -> String {
        render(statuses, format: .json, now: Date(), served: true, extra: extra)
    }

    private static func render(
        _ statuses: [FeedStatus], format: OutputFormat, now: Date, served: Bool, extra: [(String, JSON)] = []
    ) -> String {
        switch format {
        // `feeds` offers table, json and jsonl; feed documents are for the stream (JSON here).
        case .json, .jsonl, .atom, .jsonfeed:
            let objects = statuses.map { json($0, served: served) }
            if format == .jsonl { return objects.map { $0.serialized() + "\n" }.joined() }
            return JSON.object([("feeds", .array(objects))] + extra).serialized() + "\n"
        case .table:
            // Workers sharing a PostgreSQL store: who holds each feed, and when it is due next.
            let shared = statuses.contains { $0.workerSchedule != nil }
            var rows = [
                ["FEED", "SOURCE", "ITEMS", "LAST UPDATED"] + (shared ? ["WORKER", "NEXT DUE"] : [])
                    + ["PAGES", "REQUESTS", "TOKEN", "LAST ERROR"]
            ]
            for status in statuses {
                let stored = status.stored
                let name = status.name + label(status.standing)
                var items = stored.map { String($0.itemCount) } ?? "-"
                if let staged = stored?.stagedCount, staged > 0 {
                    items += " (+\(staged) saved from an interrupted pull)"
                }
                let schedule =
                    !shared ? [] : [
                        status.workerSchedule?.worker ?? "-",
                        status.workerSchedule.map { due($0.nextDueAt, now: now) } ?? "-",
                    ]
                rows.append(
                    [
                        name, status.source, items,
                        stored?.lastSuccessAt.map { "\(timestamp($0)) (\(age($0, now: now)))" } ?? "never",
                    ] + schedule + [
                    pages(stored), stored?.lastRequests.map(String.init) ?? "-",
                    status.credential ?? "-",
                    (stored?.lastError ?? "-")
                        + (stored?.resumesAtPage.map { " (the next pull resumes at page \($0))" } ?? "")
                        + (status.pluginStderr.map {
                            " (plugin stderr kept (\($0.utf8.count) bytes): `feedagg feeds --format json` shows it)"
                        } ?? ""),
                    ])
            }
            // Names, sources and errors come from the store (and errors from servers): sanitised.
            rows = rows.map { $0.map { TerminalText.sanitized($0) } }
            // Every column but the last (the error, as long as it is) padded to its widest cell.
            let last = rows[0].count - 1
            let widths = (0..<last).map { column in rows.map { TerminalText.cellWidth($0[column]) }.max() ?? 0 }
            return rows.map { row in
                (0..<last).map { TerminalText.padded(row[$0], toCells: widths[$0]) }.joined(separator: "  ")
                    + "  " + row[last]
            }.joined(separator: "\n") + "\n"
        }
    }

    /// The PAGES cell: the pages the last pull fetched, `0 (unchanged)` when it fetched none because
    /// page 1 answered 304 (or nothing changed), `-` before any pull.
    static func pages(_ stored: FeedSummary?) -> String {
        guard let pages = stored?.lastPages else { return "-" }
        if pages == 0, (stored?.lastRequests ?? 0) > 0, stored?.lastError == nil { return "0 (unchanged)" }
        return String(pages)
    }

    /// What follows a feed's name in the table.
    static func label(_ standing: FeedStatus.Standing) -> String {
        switch standing {
        case .declared, .stored: ""
        case .removed: " (removed; `feedagg prune` deletes it)"
        case .otherConfig(let path): " (from \(path))"
        case .ownerUnknown: " (not declared; stored by an older feedagg, owner unknown)"
        }
    }

    /// `declared`, `removed`, `other_config`, `owner_unknown` or `stored`.
    static func standingName(_ standing: FeedStatus.Standing) -> String {
        switch standing {
        case .declared: "declared"
        case .removed: "removed"
        case .otherConfig: "other_config"
        case .ownerUnknown: "owner_unknown"
        case .stored: "stored"
        }
    }

    static func json(_ status: FeedStatus, served: Bool = false) -> JSON {
        let stored = status.stored
        func int(_ value: Int?) -> JSON { value.map(JSON.int) ?? .null }
        var fields: [(String, JSON)] = [
            ("name", .string(status.name)), ("source", .string(status.source)), ("declared", .bool(status.declared)),
            ("standing", .string(standingName(status.standing))),
        ]
        if served {
            fields.append(("token", .bool(status.credential != nil)))
        } else {
            fields += [("config", .optionalString(stored?.config)), ("token", .optionalString(status.credential))]
        }
        fields += [
            ("items", int(stored?.itemCount)), ("missing_items", int(stored?.missingCount)),
            ("last_updated_at", .optionalString(stored?.lastSuccessAt.map(ISO8601.string(from:)))),
            ("last_attempt_at", .optionalString(stored?.lastAttemptAt.map(ISO8601.string(from:)))),
            ("last_error", .optionalString(stored?.lastError)),
            ("last_pages", int(stored?.lastPages)), ("last_requests", int(stored?.lastRequests)),
            ("resumes_at_page", int(stored?.resumesAtPage)),
            ("saved_items_of_interrupted_pull", int(stored?.stagedCount)),
        ]
        if !served { fields.append(("plugin_stderr", .optionalString(status.pluginStderr))) }
        if let schedule = status.workerSchedule {
            fields.append(("worker", .optionalString(schedule.worker)))
            fields.append(("next_due_at", .string(ISO8601.string(from: schedule.nextDueAt))))
        }
        return .object(fields)
    }

    static func timestamp(_ date: Date) -> String {
        ISO8601.string(from: date).replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: " UTC")
    }

    /// When a feed is due next: `now` when it is due already, else the time and how far ahead.
    static func due(_ date: Date, now: Date) -> String {
        guard date > now else { return "now" }
        return "\(timestamp(date)) (in \(span(Int(date.timeIntervalSince(now).rounded(.up)))))"
    }

    /// `12 s ago`, `3 min ago`, `5 h ago`, `2 days ago`.
    static func age(_ date: Date, now: Date) -> String {
        "\(span(max(0, Int(now.timeIntervalSince(date))))) ago"
    }

    /// `12 s`, `3 min`, `5 h`, `2 days`: `seconds` in its largest whole unit.
    static func span(_ seconds: Int) -> String {
        switch seconds {
        case ..<60: "\(seconds) s"
        case ..<3600: "\(seconds / 60) min"
        case ..<86_400: "\(seconds / 3600) h"
        default: "\(seconds / 86_400) days"
        }
    }
}
