import Synchronization
public import FeedCore
public import Foundation

/// One recorded HTTP exchange: the request, and the response the server gave.
///
/// On disk (one file per exchange, `Fixtures/<scenario>/NNN.json`):
/// ```json
/// {"request": {"method": "GET", "url": "https://api.github.com/orgs/x/repos?per_page=30",
///              "headers": [["Accept", "application/vnd.github+json"]]},
///  "response": {"status": 200, "headers": [["Link", "<…>; rel=\"next\""]],
///               "body": [ … JSON … ]}}
/// ```
/// `body` holds the JSON value when the body is JSON; otherwise `body_text` holds it as text.
/// Credentials are scrubbed when recording (see ``FixtureScrubber``).
public struct FixtureExchange: Sendable, Equatable {
    /// Request method.
    public var method: String
    /// Absolute request URL as recorded.
    public var url: String
    /// Request header fields (scrubbed).
    public var requestHeaders: [[String]]
    /// Response status.
    public var status: Int
    /// Response header fields (scrubbed).
    public var responseHeaders: [[String]]
    /// Response body bytes.
    public var body: Data

    /// Creates an exchange.
    public init(
        method: String = "GET", url: String, requestHeaders: [[String]] = [], status: Int,
        responseHeaders: [[String]], body: Data
    ) {
        self.method = method
        self.url = url
        self.requestHeaders = requestHeaders
        self.status = status
        self.responseHeaders = responseHeaders
        self.body = body
    }

    /// The `path?query` of the request, which replay matches on.
    public var target: String {
        guard let components = URLComponents(string: url) else { return url }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        return components.percentEncodedQuery.map { "\(path)?\($0)" } ?? path
    }

    /// `scheme://host[:port]` of the recorded request.
    public var origin: String {
        guard let components = URLComponents(string: url), let scheme = components.scheme, let host = components.host
        else { return "" }
        return components.port.map { "\(scheme)://\(host):\($0)" } ?? "\(scheme)://\(host)"
    }
}

/// A fixture file that could not be read.
public struct FixtureError: Error, Sendable, CustomStringConvertible {
    /// The file.
    public var path: String
    /// What was wrong.
    public var message: String
    public var description: String { "\(path): \(message)" }
}

/// Reads and writes fixture folders.
public enum FixtureStore {
    /// Every exchange under `directory` (recursively), ordered by path.
    public static func load(directory: String) throws -> [FixtureExchange] {
        let root = URL(fileURLWithPath: directory)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw FixtureError(path: directory, message: "not a directory of recorded exchanges")
        }
        guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else {
            throw FixtureError(path: directory, message: "cannot list the directory")
        }
        var files: [URL] = []
        for case let file as URL in enumerator where file.pathExtension == "json" { files.append(file) }
        return try files.sorted { $0.path < $1.path }.map(read)
    }

    /// Reads one exchange file.
    public static func read(_ file: URL) throws -> FixtureExchange {
        let data: Data
        do { data = try Data(contentsOf: file) } catch {
            throw FixtureError(path: file.path, message: "cannot read: \(error.localizedDescription)")
        }
        guard let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) as? [String: Any],
            let request = object["request"] as? [String: Any], let response = object["response"] as? [String: Any],
            let url = request["url"] as? String, let status = response["status"] as? Int
        else {
            throw FixtureError(
                path: file.path, message: "not an exchange: expected {request: {url, …}, response: {status, …}}")
        }
        let body: Data
        if let text = response["body_text"] as? String {
            body = Data(text.utf8)
        } else if let value = response["body"], !(value is NSNull) {
            guard
                let encoded = try? JSONSerialization.data(
                    withJSONObject: value, options: [.fragmentsAllowed, .withoutEscapingSlashes, .sortedKeys])
            else { throw FixtureError(path: file.path, message: "response body is not JSON") }
            body = encoded
        } else {
            body = Data()
        }
        return FixtureExchange(
            method: request["method"] as? String ?? "GET", url: url,
            requestHeaders: headerPairs(request["headers"]), status: status,
            responseHeaders: headerPairs(response["headers"]), body: body)
    }

    /// `[[name, value]]` pairs; non-string values (recorders store numbers) become their text.
    static func headerPairs(_ value: Any?) -> [[String]] {
        guard let list = value as? [Any] else { return [] }
        return list.compactMap { entry in
            guard let pair = entry as? [Any], pair.count == 2, let name = pair[0] as? String else { return nil }
            if let text = pair[1] as? String { return [name, text] }
            if let number = pair[1] as? NSNumber { return [name, number.stringValue] }
            return [name, String(describing: pair[1])]
        }
    }

    /// Writes `exchange` as `directory/name`, pretty-printed, JSON bodies inline.
    public static func write(_ exchange: FixtureExchange, to directory: URL, name: String) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var response: [String: Any] = ["status": exchange.status, "headers": exchange.responseHeaders]
        if let json = try? JSONSerialization.jsonObject(with: exchange.body, options: [.fragmentsAllowed]),
            !exchange.body.isEmpty
        {
            response["body"] = json
        } else if !exchange.body.isEmpty {
            response["body_text"] = String(decoding: exchange.body, as: UTF8.self)
        } else {
            response["body"] = NSNull()
        }
        let object: [String: Any] = [
            "request": ["method": exchange.method, "url": exchange.url, "headers": exchange.requestHeaders],
            "response": response,
        ]
        let data = try JSONSerialization.data(
            withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        try data.write(to: directory.appendingPathComponent(name), options: .atomic)
    }
}

/// Removes credentials from recorded exchanges.
public enum FixtureScrubber {
    /// The exchange with secret headers and secret query values replaced by `REDACTED`, cookies dropped.
    public static func scrub(_ exchange: FixtureExchange) -> FixtureExchange {
        var copy = exchange
        copy.url = Redaction.redact(exchange.url)
        copy.requestHeaders = scrub(headers: exchange.requestHeaders)
        copy.responseHeaders = scrub(headers: exchange.responseHeaders).map { field in
            field.count == 2 && field[0].lowercased() == "link" ? [field[0], redactLinks(field[1])] : field
        }
        return copy
    }

    static func scrub(headers: [[String]]) -> [[String]] {
        headers.compactMap { field in
            guard field.count == 2 else { return nil }
            let name = field[0].lowercased()
            if name == "cookie" || name == "set-cookie" { return nil }
            return [field[0], Redaction.redact(header: field[0], value: field[1])]
        }
    }

    static func redactLinks(_ value: String) -> String {
        var out = value
        for link in LinkHeader.parse(value) {
            let redacted = Redaction.redact(link.target)
            if redacted != link.target { out = out.replacingOccurrences(of: link.target, with: redacted) }
        }
        return out
    }
}

/// A transport decorator that records every exchange into a fixture folder.
public final class RecordingTransport: HTTPTransport {
    private let base: any HTTPTransport
    private let directory: URL
    private let counter = Counter()
    private let originRewrite: (from: String, to: String)?

    /// Records what `base` sends and receives into `directory` (created if needed).
    ///
    /// With `originRewrite`, every occurrence of the `from` origin in URLs, headers and bodies is
    /// written as `to`: recording from a stand-in server yields fixtures addressed to the real API.
    public init(recording base: any HTTPTransport, into directory: URL, originRewrite: (from: String, to: String)? = nil) {
        self.base = base
        self.directory = directory
        self.originRewrite = originRewrite
    }

    private func rewrite(_ text: String) -> String {
        guard let (from, to) = originRewrite else { return text }
        return text.replacingOccurrences(of: from, with: to)
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let response = try await base.send(request)
        let number = counter.next()
        var body = response.body
        if originRewrite != nil, let text = String(data: body, encoding: .utf8) {
            body = Data(rewrite(text).utf8)
        }
        let exchange = FixtureScrubber.scrub(
            FixtureExchange(
                method: request.method, url: rewrite(request.url.absoluteString),
                requestHeaders: request.headers.map { [$0.name, $0.value] }, status: response.status,
                responseHeaders: response.headers.filter { !Self.transportHeaders.contains($0.name.lowercased()) }
                    .map { [$0.name, rewrite($0.value)] },
                body: body))
        let slug = request.url.path.split(separator: "/").joined(separator: "-")
        let name = String(format: "%03d-%@.json", number, String(slug.prefix(60)))
        try FixtureStore.write(exchange, to: directory, name: name)
        return response
    }

    /// Hop-by-hop and encoding headers that no longer describe the (decoded) body.
    static let transportHeaders: Set<String> = [
        "content-length", "content-encoding", "transfer-encoding", "connection", "keep-alive",
    ]
}

/// A thread-safe counter.
private final class Counter: Sendable {
    private let state = Mutex(0)
    func next() -> Int {
        state.withLock { value in
            value += 1
            return value
        }
    }
}
