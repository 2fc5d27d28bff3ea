public import Foundation

/// A fresh folder under the system's temporary directory, for a test's files; removed by
/// ``remove()`` (usually in a `defer`).
public struct TemporaryFolder: Sendable {
    /// The folder.
    public let url: URL

    /// Creates `<label>-<UUID>` under the system's temporary directory.
    public init(_ label: String = "feedagg-test") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The file system path of `name` inside the folder (nothing is created).
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Writes `text` to `name` in the folder and returns its URL.
    @discardableResult
    public func write(_ name: String, _ text: String) throws -> URL {
        let file = url.appendingPathComponent(name)
        try Data(text.utf8).write(to: file)
        return file
    }

    /// Deletes the folder and everything in it; errors are ignored.
    public func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
