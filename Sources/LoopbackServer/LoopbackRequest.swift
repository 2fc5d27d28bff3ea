import Foundation

/// One request as the loopback server received it.
public struct LoopbackRequest: Sendable {
    /// The method, e.g. `GET`.
    public var method: String
    /// The request target exactly as received: path, and `?` plus query when present.
    public var target: String
    /// Header fields in the order received, names as sent.
    public var headers: [(name: String, value: String)]
    /// The request body (empty for GET).
    public var body: [UInt8]

    /// Creates a request (the server does this; tests may too, to call a handler directly).
    public init(method: String, target: String, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
    }

    /// The target up to (not including) the first `?`.
    public var path: String {
        String(target.prefix { $0 != "?" })
    }

    /// The raw (still percent-encoded) query after the first `?`, or `nil` when there is none.
    public var query: String? {
        guard let mark = target.firstIndex(of: "?") else { return nil }
        return String(target[target.index(after: mark)...])
    }

    /// The query as a dictionary: each `name=value` pair, the value percent-decoded (`""` when the
    /// pair has no `=`); a name given twice keeps its last value.
    public var queryValues: [String: String] {
        var values: [String: String] = [:]
        for pair in (query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            values[parts[0]] = parts.count > 1 ? (parts[1].removingPercentEncoding ?? parts[1]) : ""
        }
        return values
    }

    /// The first value of header `name` (case-insensitive), if any.
    public func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.name.lowercased() == lower }?.value
    }

    /// Every value of header `name` (case-insensitive), in order.
    public func headerValues(_ name: String) -> [String] {
        let lower = name.lowercased()
        return headers.filter { $0.name.lowercased() == lower }.map(\.value)
    }
}
