public import Foundation

/// The bench server's `/__stats` counters.
public struct BenchStats: Sendable {
    /// The JSON document as received.
    public let raw: Data
    /// API requests (control endpoints excluded).
    public let requests: Int
    /// Requests per route template (`/orgs/{org}/repos`, `/organizations/{id}/repos`, `404`, …).
    public let byRoute: [String: Int]
    /// Requests per path.
    public let byPath: [String: Int]
    /// Responses per status code (as a string).
    public let byStatus: [String: Int]
    /// The most API requests in flight at once.
    public let maxInFlight: Int
    /// Requests that carried `If-None-Match`.
    public let ifNoneMatch: Int
    /// 304 responses.
    public let notModified: Int
    /// TCP connections accepted.
    public let connectionsOpened: Int

    /// Parses a `/__stats` body.
    public init(json: Data) throws {
        guard let object = try JSONSerialization.jsonObject(with: json) as? [String: Any] else {
            throw BenchServerError("/__stats is not a JSON object: \(String(decoding: json.prefix(200), as: UTF8.self))")
        }
        func integer(_ key: String) throws -> Int {
            guard let value = object[key] as? Int else { throw BenchServerError("/__stats has no integer '\(key)'") }
            return value
        }
        func counts(_ key: String) -> [String: Int] {
            (object[key] as? [String: Any] ?? [:]).compactMapValues { $0 as? Int }
        }
        raw = json
        requests = try integer("requests")
        maxInFlight = try integer("max_in_flight")
        ifNoneMatch = try integer("if_none_match")
        notModified = try integer("not_modified_304")
        connectionsOpened = try integer("connections_opened")
        byRoute = counts("by_route")
        byPath = counts("by_path")
        byStatus = counts("by_status")
    }

    /// The whole document as Foundation objects, for fields without a typed property.
    public func object() throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: raw) as? [String: Any] ?? [:]
    }
}
