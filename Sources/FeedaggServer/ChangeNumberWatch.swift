import FeedStore
import ServiceLifecycle
import Synchronization

/// The store's change number as the store announces it (``StoreDriver/watchChangeNumber(_:)``,
/// PostgreSQL's `LISTEN`), so that a revalidated or kept first page costs no round trip.
///
/// `feedagg serve` asks the change number before every first page it keeps rendered
/// (``RenderedPages``). On PostgreSQL each ask was a round trip shared by the requests waiting at
/// once (``SharedRead``): under sixteen polling readers, 7 of them per trip, each trip about
/// 0.6 ms on two busy cores, and a `304` cost about as much as the wait. With the watch, the
/// number is the highest one announced or read since the link came up, and a request takes it as
/// it stands.
///
/// What that gives up, and what it keeps:
/// - A commit by another process (a `feedagg pull`, another worker) is seen when its announcement
///   arrives, a moment after the commit (PostgreSQL sends it as the commit ends; well under a
///   millisecond on one machine): a first page asked for in that moment can still be the one
///   before it.
/// - This process's own pulls are seen at once: when a batch of them ends (``wrote()``), before
///   its status reads as finished, the next request reads the number again.
/// - The watch vouches for the number only while its link is up and has answered within
///   ``trustWindow`` (an announcement, or the store's periodic check of its link); otherwise, and
///   while it connects again, every request reads the number as before.
final class ChangeNumberWatch: Sendable {
    private struct State {
        /// The highest number announced or read since the link came up; `nil` while it is down.
        var number: Int64?
        /// When the link last answered (an announcement or a check); `nil` while it is down.
        var heardAt: ContinuousClock.Instant?
        /// Moves each time this process wrote to the store (``wrote()``).
        var writes: UInt64 = 0
        /// Whether a write of this process has not been read since.
        var unread = false
    }

    /// How long the link's last answer vouches for the number: three of the store's checks
    /// (``PostgresFeedStore/changeWatchCheckInterval``, two seconds), so a link that stopped
    /// answering is trusted no longer than this.
    static let trustWindow: Duration = .seconds(6)
    /// The wait before listening again after the link failed.
    static let retryDelay: Duration = .seconds(1)

    private let state = Mutex(State())
    private let clock = ContinuousClock()

    /// The change number, when the watch vouches for it; `nil`: read it.
    func current() -> Int64? {
        let now = clock.now
        return state.withLock { state in
            guard !state.unread, let number = state.number, let heard = state.heardAt,
                now - heard < Self.trustWindow
            else { return nil }
            return number
        }
    }

    /// The store announced `number` (or the watch read it on its link).
    func heard(_ number: Int64) {
        let now = clock.now
        state.withLock { state in
            state.number = max(state.number ?? number, number)
            state.heardAt = now
        }
    }

    /// The link failed or ended: nothing is vouched for until it is back.
    func lost() {
        state.withLock { state in
            state.number = nil
            state.heardAt = nil
        }
    }

    /// This process changed the store: the next request reads the number rather than wait for the
    /// announcement.
    func wrote() {
        state.withLock { state in
            state.writes &+= 1
            state.unread = true
        }
    }

    /// The mark of the writes so far: a read that starts after taking it sees them.
    var writes: UInt64 { state.withLock { $0.writes } }

    /// A read of the number, started after the mark `writes` was taken, found `number`.
    func read(_ number: Int64, since writes: UInt64) {
        state.withLock { state in
            if state.heardAt != nil { state.number = max(state.number ?? number, number) }
            if state.writes == writes { state.unread = false }
        }
    }

    /// Follows `store`'s announcements until the task is cancelled, listening again
    /// ``retryDelay`` after each failure; returns at once for a store that makes none (SQLite).
    func follow(_ store: any StoreDriver) async {
        while !Task.isCancelled {
            do {
                guard
                    try await store.watchChangeNumber({ [self] number, announced in
                        if announced { ServerMetrics.recordChangeAnnounced() }
                        heard(number)
                    })
                else { return }
            } catch {}
            lost()
            try? await Task.sleep(for: Self.retryDelay)
        }
        lost()
    }
}

/// ``ChangeNumberWatch/follow(_:)`` as a service of `feedagg serve`'s group: it ends on graceful
/// shutdown.
struct ChangeNumberWatchService: Service {
    let watch: ChangeNumberWatch
    let store: any StoreDriver

    func run() async throws {
        await cancelWhenGracefulShutdown { [watch, store] in await watch.follow(store) }
    }
}
