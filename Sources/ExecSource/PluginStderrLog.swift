public import Foundation

/// The standard error of each exec feed's last plugin run, kept per feed in files beside the
/// store (`<store>.plugin-stderr/<feed>.txt`), so `feedagg feeds` can show it for a feed whose
/// last pull failed. The store's schema is untouched: the files are a side record, and losing
/// them loses nothing the store needs.
///
/// Each file holds the last run's standard error (already sanitized, secrets redacted), cut to
/// its last ``limit`` bytes at a character boundary; a run that wrote nothing to standard error
/// removes the feed's file. Writes replace the file atomically.
public struct PluginStderrLog: Sendable {
    /// The most bytes kept per feed: the tail of a longer standard error.
    public static let limit = 64 << 10

    /// The folder holding one file per feed.
    public let directory: URL

    /// The log of the store at `storePath`: the folder `<storePath>.plugin-stderr`.
    public init(storePath: String) {
        directory = URL(fileURLWithPath: storePath + ".plugin-stderr")
    }

    /// The file of `feed`: its name with every byte outside `[A-Za-z0-9_-]` (and a leading dot)
    /// percent-encoded, so any feed name is one safe file name.
    public func file(for feed: String) -> URL {
        var name = ""
        for byte in feed.utf8 {
            let safe =
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == 0x5F || byte == 0x2D || (byte == 0x2E && !name.isEmpty)
            name += safe ? String(UnicodeScalar(byte)) : String(format: "%%%02X", byte)
        }
        return directory.appendingPathComponent(name + ".txt")
    }

    /// Records `stderr` as `feed`'s last standard error (its tail); an empty one removes the file.
    /// Failures are returned, not thrown: a side record never fails a pull.
    @discardableResult
    public func record(_ stderr: String, feed: String) -> (any Error)? {
        let file = file(for: feed)
        do {
            if stderr.isEmpty {
                if FileManager.default.fileExists(atPath: file.path) { try FileManager.default.removeItem(at: file) }
                return nil
            }
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(Self.tail(stderr).utf8).write(to: file, options: .atomic)
            return nil
        } catch {
            return error
        }
    }

    /// `feed`'s last recorded standard error, or `nil`.
    public func read(feed: String) -> String? {
        guard let data = try? Data(contentsOf: file(for: feed)), !data.isEmpty else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// The last ``limit`` bytes of `text`, starting at a character boundary.
    static func tail(_ text: String) -> String {
        let bytes = Array(text.utf8)
        guard bytes.count > limit else { return text }
        var start = bytes.count - limit
        while start < bytes.count, bytes[start] & 0xC0 == 0x80 { start += 1 }
        return String(decoding: bytes[start...], as: UTF8.self)
    }
}
