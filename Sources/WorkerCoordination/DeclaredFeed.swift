// Built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

import Crypto
import Foundation

/// A feed as a worker's configuration declares it to the shared schedule.
public struct DeclaredFeed: Sendable, Hashable {
    /// The feed's name (unique across the workers sharing the database).
    public var name: String
    /// Its interval (already scaled by the caller when it compresses time).
    public var interval: Duration
    /// `scheme://host:port` of its requests, as in a ``WorkerCoordinator/recordPause(origin:credential:until:setBy:)``
    /// (empty: no shared pause applies to it).
    public var origin: String
    /// ``DeclaredFeed/credentialDigest(_:)`` of what it sends to that origin (empty: nothing).
    public var credential: String

    /// Creates a declaration.
    public init(name: String, interval: Duration, origin: String = "", credential: String = "") {
        self.name = name
        self.interval = interval
        self.origin = origin
        self.credential = credential
    }

    /// A digest that identifies a credential without being it, the same in every process and on
    /// every machine (SHA-256, hexadecimal, of the secrets sorted and joined by newlines; empty for
    /// none). Swift's `Hasher` would not do: it is seeded per process.
    public static func credentialDigest(_ secrets: [String]) -> String {
        guard !secrets.isEmpty else { return "" }
        let digest = SHA256.hash(data: Data(secrets.sorted().joined(separator: "\n").utf8))
        return digest.map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}

#endif
