import Foundation

/// Reads `--sample`: a recorded JSON response body (an array of items, or an object holding one
/// under `items`), one exchange file, or a `feedagg record` output folder (every exchange's body).
enum SampleLoader {
    /// The item objects of the sample, parsed twice: as typed values (for the draft) and as the
    /// original JSON re-encoded with sorted keys (for the generated fixture).
    static func load(_ path: String) throws -> (values: [[String: JSONValue]], encoded: [Data]) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ScaffoldError("--sample \(path): no such file or folder")
        }
        var files = [URL(fileURLWithPath: path)]
        if isDirectory.boolValue {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            files = names.filter { $0.hasSuffix(".json") && $0 != "feed.json" }.sorted()
                .map { URL(fileURLWithPath: path).appendingPathComponent($0) }
            guard !files.isEmpty else { throw ScaffoldError("--sample \(path): the folder holds no recorded exchanges (*.json)") }
        }
        var values: [[String: JSONValue]] = []
        var encoded: [Data] = []
        for file in files {
            let elements = try elements(in: file)
            for element in elements {
                let data = try JSONSerialization.data(withJSONObject: element, options: [.sortedKeys, .withoutEscapingSlashes])
                guard case .object(let object)? = try? JSONDecoder().decode(JSONValue.self, from: data) else { continue }
                values.append(object)
                encoded.append(data)
            }
        }
        return (values, encoded)
    }

    /// The item objects of one file: a body, or an exchange's response body.
    static func elements(in file: URL) throws -> [[String: Any]] {
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw ScaffoldError("--sample \(file.path): cannot read it")
        }
        guard var body = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
            throw ScaffoldError("--sample \(file.path): not JSON")
        }
        if let exchange = body as? [String: Any], let response = exchange["response"] as? [String: Any] {
            body = response["body"] ?? []
        }
        if let object = body as? [String: Any], let items = object["items"] { body = items }
        guard let list = body as? [Any] else {
            throw ScaffoldError(
                "--sample \(file.path): expected a JSON array of items (or {\"items\": […]}, or a recorded exchange)")
        }
        return list.compactMap { $0 as? [String: Any] }
    }
}
