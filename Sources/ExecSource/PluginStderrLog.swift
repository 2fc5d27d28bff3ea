public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The standard error of each exec feed's last plugin run, kept per feed in files beside the
/// store (`<store>.plugin-stderr/<feed>.txt`), so `feedagg feeds` can show it for a feed whose
/// last pull failed. The store's schema is untouched: the files are a side record, and losing
/// them loses nothing the store needs. A PostgreSQL store has no file to sit beside: its log is
/// `$XDG_STATE_HOME/feedagg/postgres-<user>@<host>-<port>-<database>.plugin-stderr/`
/// (`~/.local/state/feedagg/…` by default).
///
/// Each file holds the last run's standard error (already sanitized, secrets redacted), cut to
/// its last ``limit`` bytes at a character boundary; a run that wrote nothing to standard error
/// removes the feed's file. Writes replace the file atomically. The folder is mode 0700 and the
/// files 0600: a plugin's standard error may say more than it should.
public struct PluginStderrLog: Sendable {
    /// The most bytes kept per feed: the tail of a longer standard error.
    public static let limit = 64 << 10

    /// The folder holding one file per feed.
    public let directory: URL

    /// The log of the store at `storePath`: the folder `<storePath>.plugin-stderr` for a file;
    /// for a `postgres://` (or `postgresql://`) URL, a folder under `$XDG_STATE_HOME/feedagg`
    /// (else `$HOME/.local/state/feedagg`) named after the server, user and database (never the
    /// password), so the URL with or without its password names the same folder.
    public init(storePath: String, environment: [String: String] = ProcessInfo.processInfo.environment) {
        if let server = Self.postgresName(storePath) {
            let state: String
            if let home = environment["XDG_STATE_HOME"], home.hasPrefix("/") {
                state = home
            } else {
                state = (environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? NSHomeDirectory()) + "/.local/state"
            }
            directory = URL(fileURLWithPath: state).appendingPathComponent("feedagg")
                .appendingPathComponent(Self.safeName(server) + ".plugin-stderr")
        } else {
            directory = URL(fileURLWithPath: storePath + ".plugin-stderr")
        }
    }

    /// `postgres-<user>@<host>-<port>-<database>` for a PostgreSQL URL, `nil` for a file path.
    static func postgresName(_ location: String) -> String? {
        let lower = location.lowercased()
        guard lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://"),
            let components = URLComponents(string: location)
        else { return nil }
        let database = components.path.split(separator: "/").first.map(String.init) ?? ""
        let query = components.queryItems ?? []
        let socket = query.first { $0.name == "host" }?.value
        let host = components.host.flatMap { $0.isEmpty ? nil : $0 } ?? socket ?? "localhost"
        let port = components.port ?? query.first { $0.name == "port" }?.value.flatMap { Int($0) } ?? 5432
        return "postgres-\(components.user ?? "")@\(host)-\(port)-\(database)"
    }

    /// The file of `feed`: its name with every byte outside `[A-Za-z0-9_-]` (and a leading dot)
    /// percent-encoded, so any feed name is one safe file name.
    public func file(for feed: String) -> URL {
        directory.appendingPathComponent(Self.safeName(feed) + ".txt")
    }

    /// `text` with every byte outside `[A-Za-z0-9_-]` (and a leading dot) percent-encoded.
    static func safeName(_ text: String) -> String {
        var name = ""
        for byte in text.utf8 {
            let safe =
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == 0x5F || byte == 0x2D || (byte == 0x2E && !name.isEmpty)
            name += safe ? String(UnicodeScalar(byte)) : String(format: "%%%02X", byte)
        }
        return name
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
            try makeDirectory()
            try Self.writePrivately(Data(Self.tail(stderr).utf8), to: file)
            return nil
        } catch {
            return error
        }
    }

    /// Creates the folder (and its missing parents) mode 0700, and sets 0700 on one that exists.
    func makeDirectory() throws {
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        guard chmod(directory.path, 0o700) == 0 else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: directory.path])
        }
    }

    /// Writes `data` to a new file mode 0600 beside `file`, then renames it over `file`.
    static func writePrivately(_ data: Data, to file: URL) throws {
        let temporary = file.path + ".\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary]) }
        var failed = false
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let count = Foundation.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else {
                    failed = true
                    return
                }
                offset += count
            }
        }
        close(fd)
        guard !failed, rename(temporary, file.path) == 0 else {
            unlink(temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path])
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
