import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Ends a pull on SIGINT (Ctrl-C) with one line saying what was saved.
///
/// Every page is written to the store as it is accepted, with the point its feed's next pull
/// resumes from (see `FeedStore.stagePage`), so nothing needs saving on the way out: the watch
/// clears the progress line, prints ``PullProgress/interruptionLine`` and exits with status 130
/// (128 + SIGINT, what a shell reports for a process Ctrl-C ended). A write in flight is rolled
/// back by SQLite, as after a crash. ``stop()`` restores the default disposition.
final class InterruptWatch {
    private let source: any DispatchSourceSignal

    /// Starts watching: SIGINT is ignored by the default handler and delivered to a dispatch source.
    init(console: Console, progress: PullProgress) {
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler {
            console.clearProgress()
            console.error(progress.interruptionLine)
            _exit(130)
        }
        source.resume()
        self.source = source
    }

    /// Stops watching; SIGINT ends the process again.
    func stop() {
        source.cancel()
        signal(SIGINT, SIG_DFL)
    }
}
