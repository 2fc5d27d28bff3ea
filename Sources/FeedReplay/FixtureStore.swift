import Synchronization
import FeedCore
public import Foundation

/// Reads and writes fixture folders.
public enum FixtureStore {
    /// Every exchange under `directory` (recursively), ordered by path, but the recorded feed's
    /// ``FixtureFeedFile`` (`feed.json`). A symbolic link to the
    /// folder is followed (the enumerator does not descend into a link itself).
    public static func load(directory: String) throws -> [FixtureExchange] {
        let root = URL(fileURLWithPath: directory).resolvingSymlinksInPath()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw FixtureError(path: directory, message: "not a directory of recorded exchanges")
        }
        guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else {
            throw FixtureError(path: directory, message: "cannot list the directory")
        }
        var files: [URL] = []
        for case let file as URL in enumerator
        where file.pathExtension == "json" && file.lastPathComponent != FixtureFeedFile.fileName {
            files.append(file)
        }
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
