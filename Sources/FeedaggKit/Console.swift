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
    ///
    /// The line may carry remote text (a server's error message, a feed name from the store): it
    /// is written through ``TerminalText/sanitized(_:keepingNewlines:)``, so no escape sequence or
    /// control character but the newline reaches the terminal.
    public func error(_ line: String) {
        guard !discardsErrors else { return }
        let safe = TerminalText.sanitized(line, keepingNewlines: true)
        state.withLock { state in
            if state.progressShown {
                _ = Self.write("\r\u{1B}[2K", to: 2)
                state.progressShown = false
            }
            _ = Self.write(safe + "\n", to: 2)
        }
    }

    /// Replaces the progress line (terminal only), sanitised like ``error(_:)`` (without newlines).
    public func progress(_ line: String) {
        guard stderrIsTerminal else { return }
        let safe = TerminalText.sanitized(line)
        state.withLock { state in
            _ = Self.write("\r\u{1B}[2K" + safe, to: 2)
            state.progressShown = true
        }
    }

    /// Removes the progress line, if shown.
    public func clearProgress() {
        state.withLock { state in
            guard state.progressShown else { return }
            _ = Self.write("\r\u{1B}[2K", to: 2)
            state.progressShown = false
        }
    }

    /// Writes text to standard output, as is (renderers sanitise remote text themselves; JSON
    /// escapes it).
    ///
    /// A failed write ends the process, as `git` does: when the reader went away (`EPIPE`, e.g.
    /// `feedagg show | head -1` with SIGPIPE ignored) it dies of SIGPIPE silently; any other error
    /// (`ENOSPC` on `> /dev/full`, `EIO`, …) prints `feedagg: cannot write to standard output: …`
    /// on standard error and exits with status 1 (``ExitStatus/internalError``): output that was
    /// cut short must never look like success.
    public func output(_ text: String) {
        let failure = state.withLock { _ in Self.write(text, to: 1) }
        guard let failure else { return }
        if failure == EPIPE {
            signal(SIGPIPE, SIG_DFL)
            raise(SIGPIPE)
            _exit(141)
        }
        let reason = String(cString: strerror(failure))
        state.withLock { state in
            if state.progressShown { _ = Self.write("\r\u{1B}[2K", to: 2) }
            _ = Self.write("feedagg: cannot write to standard output: \(reason)\n", to: 2)
        }
        _exit(ExitStatus.internalError.rawValue)
    }

    /// Writes all of `text` to `fd`; the `errno` of a failed write, `nil` when everything was written.
    private static func write(_ text: String, to fd: Int32) -> Int32? {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                Foundation.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            if written == 0 { return EIO }
            offset += written
        }
        return nil
    }
}

extension Console {
    /// Prints `rendered`: the body on standard output, the footer on standard output too when
    /// `style` is a terminal, else on standard error (so a pipe gets only the rows).
    public func print(_ rendered: RenderedOutput, style: TableStyle) {
        let footer = rendered.footer.map { $0 + "\n" }.joined()
        if style.isTerminal {
            output(rendered.body + footer)
        } else {
            output(rendered.body)
            if !footer.isEmpty { error(String(footer.dropLast())) }
        }
    }
}
