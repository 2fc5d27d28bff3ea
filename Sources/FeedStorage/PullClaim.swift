public import FeedCore
public import Foundation

/// The process pulling a feed, as recorded on the feed's checkpoint: `pid:start` where `start` is
/// the process's start time in clock ticks since boot (`/proc/PID/stat`), so a reused pid is not
/// mistaken for the process that claimed the feed.
public struct PullOwner: Sendable, Hashable, CustomStringConvertible {
    /// The process id.
    public var pid: Int32
    /// Its start time (clock ticks since boot), or 0 when unknown.
    public var start: UInt64

    /// This process.
    public static let current = PullOwner(pid: getpid(), start: PullOwner.startTime(of: getpid()) ?? 0)

    /// Creates an owner.
    public init(pid: Int32, start: UInt64) {
        self.pid = pid
        self.start = start
    }

    /// The owner written as `pid:start`; `nil` when `text` is not one.
    package init?(_ text: String) {
        let parts = text.split(separator: ":")
        guard parts.count == 2, let pid = Int32(parts[0]), let start = UInt64(parts[1]) else { return nil }
        self.init(pid: pid, start: start)
    }

    public var description: String { "\(pid):\(start)" }

    /// Whether the process still runs (same pid and start time).
    public var isAlive: Bool {
        guard let now = Self.startTime(of: pid) else { return false }
        return start == 0 || now == start
    }

    /// Field 22 of `/proc/PID/stat` (after the parenthesised command name, which may hold spaces).
    package static func startTime(of pid: Int32) -> UInt64? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // fields[0] is the state (field 3), so field 22 is fields[19].
        guard fields.count > 19 else { return nil }
        return UInt64(fields[19])
    }
}

/// A claim on one feed for one pull written page by page (``StoreDriver/beginPull(feed:source:fingerprint:restart:owner:config:)``).
public struct PullTicket: Sendable {
    /// The feed.
    public var feed: String
    /// Its source type.
    public var source: String
    /// The process holding the claim.
    public var owner: PullOwner
    /// The pull number its items are written as.
    public var pull: Int64
    /// The pull number the walk began in (earlier when it continues an interrupted pull).
    public var startedPull: Int64

    /// Creates a ticket (engines do, in `beginPull`).
    public init(feed: String, source: String, owner: PullOwner, pull: Int64, startedPull: Int64) {
        self.feed = feed
        self.source = source
        self.owner = owner
        self.pull = pull
        self.startedPull = startedPull
    }

    /// A checkpoint untouched for this long is not resumed: the listing has moved on.
    public static let resumeWindow: TimeInterval = 24 * 3600
}

/// How a feed's pull begins.
public enum PullStart: Sendable {
    /// From page 1.
    case fresh(PullTicket)
    /// From where an interrupted pull stopped; `storedPages` pages are staged or stored already.
    case resume(PullTicket, ResumePoint, storedPages: Int)
    /// Another live process is pulling the feed right now.
    case busy(PullOwner)
}
