import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The bearer token every request must carry (`--auth-token-file`), read from a file only its owner
/// can read or write, like ssh's private keys. The token never appears in any message or response.
public struct AuthToken: Sendable {
    /// The largest token file accepted, in bytes.
    static let maximumSize = 4096
    private let bytes: [UInt8]

    /// Reads the token from `path` (surrounding whitespace and the trailing newline trimmed).
    init(file path: String) throws(ServeError) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw ServeError("--auth-token-file \(path): \(String(cString: strerror(errno)))")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw ServeError("--auth-token-file \(path): not a regular file")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw ServeError(
                "--auth-token-file \(path): the file can be read or written by others (mode "
                    + String(info.st_mode & 0o777, radix: 8) + "); make it private: chmod 600 \(path)")
        }
        guard info.st_size <= Self.maximumSize else {
            throw ServeError("--auth-token-file \(path): larger than \(Self.maximumSize) bytes, not a token")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ServeError("--auth-token-file \(path): cannot be read")
        }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw ServeError("--auth-token-file \(path): the file is empty") }
        guard !text.contains(where: { $0.isWhitespace || $0.isNewline }) else {
            throw ServeError("--auth-token-file \(path): the token must be one word (no spaces or line breaks)")
        }
        guard text.count >= Self.minimumLength else {
            throw ServeError(
                "--auth-token-file \(path): the token is shorter than \(Self.minimumLength) characters, too easy to guess; "
                    + "make one with: feedagg serve --print-token > \(path) && chmod 600 \(path)")
        }
        bytes = Array(text.utf8)
    }

    /// The shortest token accepted.
    static let minimumLength = 16

    /// A new random token: 32 bytes from the system's random source, base64url without padding
    /// (43 characters), what `feedagg serve --print-token` prints.
    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Whether `header` is `Bearer <token>`, compared in time independent of where it differs.
    func accepts(authorization header: String?) -> Bool {
        guard let header else { return false }
        let prefix = "bearer "
        guard header.count > prefix.count, header.prefix(prefix.count).lowercased() == prefix else { return false }
        let offered = Array(header.utf8.dropFirst(prefix.utf8.count))
        return Self.constantTimeEqual(offered, bytes)
    }

    /// Compares every byte whatever the first difference; only the lengths may leak.
    static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        var difference = UInt8(lhs.count == rhs.count ? 0 : 1)
        for index in 0..<max(lhs.count, rhs.count) {
            let left = index < lhs.count ? lhs[index] : 0
            let right = index < rhs.count ? rhs[index] : 0
            difference |= left ^ right
        }
        return difference == 0
    }
}
