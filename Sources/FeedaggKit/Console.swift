import FeedCore
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Standard error, written line by line from any task, with an optional live progress line.
public final class Console: Sendable {
    private struct State {
        var progressShown = false
    }

    private let state = Mutex(State())
    /// Whether standard error is a terminal (progress lines only appear on one).
    public let stderrIsTerminal: Bool

    /// Lines written to standard error are dropped (a library caller that reads the results).
    private let discardsErrors: Bool

    /// Creates a console on the process's standard error.
    public init() {
        stderrIsTerminal = isatty(2) == 1
        discardsErrors = false
    }

    private init(discardingErrors: Bool) {
        stderrIsTerminal = false
        discardsErrors = discardingErrors
    }

    /// A console that drops every standard-error line and progress line (standard output still works).
    public static var discardingErrors: Console { Console(discardingErrors: true) }

    /// Writes one line to standard error (clearing the progress line first).
    public func error(_ line: String) {
        guard !discardsErrors else { return }
        state.withLock { state in
            if state.progressShown {
                Self.write("\r\u{1B}[2K", to: 2)
                state.progressShown = false
            }
            Self.write(line + "\n", to: 2)
        }
    }

    /// Replaces the progress line (terminal only).
    public func progress(_ line: String) {
        guard stderrIsTerminal else { return }
        state.withLock { state in
            Self.write("\r\u{1B}[2K" + line, to: 2)
            state.progressShown = true
        }
    }

    /// Removes the progress line, if shown.
    public func clearProgress() {
        state.withLock { state in
            guard state.progressShown else { return }
            Self.write("\r\u{1B}[2K", to: 2)
            state.progressShown = false
        }
    }

    /// Writes text to standard output.
    public func output(_ text: String) {
        state.withLock { _ in Self.write(text, to: 1) }
    }

    private static func write(_ text: String, to fd: Int32) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                Foundation.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written <= 0 {
                if written < 0 && errno == EINTR { continue }
                return
            }
            offset += written
        }
        bytes.removeAll()
    }
}

/// Counts feeds and pages done during a pull, for the progress line.
final class PullProgress: Sendable {
    private struct Counts {
        var feedsDone = 0
        var pages = 0
        var requests = 0
        var finished = false
    }

    private let counts = Mutex(Counts())
    let totalFeeds: Int

    init(totalFeeds: Int) {
        self.totalFeeds = totalFeeds
    }

    func page() { counts.withLock { $0.pages += 1 } }
    func request() { counts.withLock { $0.requests += 1 } }
    func feedDone() { counts.withLock { $0.feedsDone += 1 } }
    func finish() { counts.withLock { $0.finished = true } }

    var line: String? {
        counts.withLock { counts in
            counts.finished
                ? nil
                : "pulling: \(counts.feedsDone)/\(totalFeeds) feeds done · \(counts.pages) pages · \(counts.requests) requests"
        }
    }

    /// Shows the progress line once the pull has run longer than `grace`, refreshing it until
    /// the pull finishes. Runs as a child task of the pull, so it ends with it.
    func display(on console: Console, grace: Duration = .milliseconds(500), every: Duration = .milliseconds(100)) async {
        guard console.stderrIsTerminal else { return }
        do {
            try await Task.sleep(for: grace)
            while let line = self.line {
                console.progress(line)
                try await Task.sleep(for: every)
            }
        } catch {}
        console.clearProgress()
    }
}
