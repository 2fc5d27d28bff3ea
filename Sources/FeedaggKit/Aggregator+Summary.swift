public import FeedCore
public import FeedStore
import Foundation

// MARK: - What a pull prints per feed and per request

extension Aggregator {
    /// Prints the feed's summary line (or its failure) once it is committed.
    static func report(
        _ result: FeedResult, commit: Result<CommitSummary, StoreError>, saveTime: Duration, quiet: Bool,
        on console: Console
    ) {
        if case .failure(let error) = commit {
            console.error("✗ feed '\(result.feed)': not saved: \(error)")
            return
        }
        if let error = result.error {
            let kept = (try? commit.get()).map { $0.inserted + $0.updated + $0.unchanged } ?? 0
            var remarks: [String] = []
            if kept > 0 {
                remarks.append(
                    kept == 1
                        ? "the item fetched before the failure is saved"
                        : "the \(kept) items fetched before the failure are saved")
            }
            if let page = resumePage(of: result) { remarks.append("the next pull resumes at page \(page)") }
            console.error("✗ \(error)" + (remarks.isEmpty ? "" : " (" + remarks.joined(separator: "; ") + ")"))
        } else if !quiet {
            console.error(summary(result, commit: try? commit.get(), saveTime: saveTime))
        }
        guard !quiet else { return }
        // A failed feed did not stop at max_pages: it stopped at its failure, which says so.
        let notes = result.error == nil ? result.notes : result.notes.filter { !$0.hasPrefix("stopped at max_pages") }
        for note in notes { console.error("  note: feed '\(result.feed)': \(note)") }
    }

    /// The page the next pull of a failed feed starts at, when it resumes rather than starting over:
    /// the failure is worth resuming and the walk got past page 1 (or was itself resumed).
    static func resumePage(of result: FeedResult) -> Int? {
        // After a write failure the saved pages end earlier than the fetched ones: say nothing.
        guard let error = result.error, error.reason.isResumable, !error.reason.isNotSaved,
            result.pages > 0 || result.resumedAtPage != nil
        else { return nil }
        return (result.resumedAtPage ?? 1) + result.pages
    }

    /// `GET <url> → 200 · 5123 B · 52 ms` (secrets already redacted by the engine).
    public static func describe(_ record: RequestRecord) -> String {
        let ms = Int((Double(record.duration.components.attoseconds) / 1e15).rounded())
            + Int(record.duration.components.seconds) * 1000
        if let failure = record.failure {
            let hops = record.redirects.map { $0 + " → " }.joined()
            return "\(record.label) → \(hops)failed after \(ms) ms: \(failure)"
        }
        let status = record.status.map(String.init) ?? "-"
        let hops = record.redirects.map { $0 + " → " }.joined()
        return "\(record.label) → \(hops)\(status) · \(record.bytes) B · \(ms) ms"
            + (record.fromCache ? " · from cache" : " · network") + " [\(record.feed)]"
    }

    /// `✓ name (source): N items (n new, u updated), P pages, R requests, 0.21 s`, or
    /// `✓ name (source): unchanged (304), 1 request, 0.05 s`.
    public static func summary(_ result: FeedResult, commit: CommitSummary? = nil, saveTime: Duration? = nil) -> String {
        func seconds(_ duration: Duration) -> String {
            String(format: "%.2f", duration.seconds)
        }
        var time = seconds(result.duration) + " s"
        if let saveTime, !result.unchanged { time += " + \(seconds(saveTime)) s to save" }
        let requests = Plural.of(result.requests, "request")
        if result.unchanged {
            return "✓ \(result.feed) (\(result.source)): unchanged since the last pull (304), \(requests), \(time)"
        }
        var line = "✓ \(result.feed) (\(result.source)): \(Plural.of(max(result.itemCount, result.items.count), "item"))"
        if let commit { line += " (\(commit.inserted) new, \(commit.updated) updated)" }
        line += ", \(Plural.of(result.pages, "page")), \(requests), \(time)"
        if let page = result.stoppedAtStoredPage {
            line += "; stopped after page \(page): the older items are already stored"
        }
        if let watermark = result.watermark { line += "; asked only for items updated since \(ISO8601.string(from: watermark))" }
        if let page = result.resumedAtPage { line += "; resumed at page \(page), where the last pull stopped" }
        return line
    }
}
