// Built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

import Foundation

/// A worker's identity in the registry: `host:pid:random`, unique even when a pid is reused or a
/// worker restarts on the same machine.
public struct WorkerID: Hashable, Sendable, CustomStringConvertible {
    /// The identity as stored.
    public let rawValue: String

    /// An identity given by the caller (tests, a `--worker-id`).
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    /// `host:pid:random` for this process.
    public static func current() -> WorkerID {
        let host = ProcessInfo.processInfo.hostName
        let pid = ProcessInfo.processInfo.processIdentifier
        let random = UUID().uuidString.prefix(8).lowercased()
        return WorkerID("\(host):\(pid):\(random)")
    }

    public var description: String { rawValue }
}

#endif
