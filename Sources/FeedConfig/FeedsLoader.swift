public import FeedCore
public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads feeds.yaml into a validated ``FeedsDocument``.
///
/// Every problem is a ``ConfigError`` located at the offending node (`file:line:col`, the line, a
/// caret, and `help:` notes), so the CLI only has to print it. Like a compiler, the loader reports
/// every error of a file: a feed with an error is skipped and the next feed is still checked; one
/// error is thrown as itself, several as one ``ConfigErrors``.
public enum FeedsLoader {
    /// The largest configuration file accepted, in bytes.
    public static let maximumFileSize = 4 << 20

    /// Reads and validates the file at `path`.
    ///
    /// - Parameters:
    ///   - path: the file, as the user named it (errors quote it as given).
    ///   - sources: the source types feeds may use.
    ///   - environment: the variables `${VAR}` references resolve against.
    /// - Throws: ``ConfigError`` (one error; without a location when the file cannot be read) or
    ///   ``ConfigErrors`` (several).
    public static func load(
        path: String, sources: [SourceDescriptor],
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> FeedsDocument {
        try parse(bytes: readFile(path), path: path, sources: sources, environment: environment)
    }

    /// Reads and validates the file at `path`, returning the errors found instead of throwing them:
    /// the document holds only the feeds without an error, so a caller can check more (e.g. build
    /// each feed's source) and report everything at once.
    ///
    /// - Throws: ``ConfigError`` only for a problem that stops all checking (an unreadable file,
    ///   invalid YAML, a top level that is not a mapping).
    public static func loadCollectingErrors(
        path: String, sources: [SourceDescriptor],
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> (document: FeedsDocument, errors: [ConfigError]) {
        let bytes = try readFile(path)
        let file = SourceFile(path: path, text: displayText(bytes))
        let root = try YAMLParser(file: file, environment: environment).parse(bytes)
        var validator = FeedsValidator(file: file, sources: sources, home: environment["HOME"], environment: environment)
        let document = try validator.document(root)
        return (document, validator.errors)
    }

    /// Validates configuration `text` as if read from `path`.
    ///
    /// - Throws: ``ConfigError`` or ``ConfigErrors``.
    public static func parse(
        text: String, path: String, sources: [SourceDescriptor],
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> FeedsDocument {
        try parse(bytes: Array(text.utf8), path: path, sources: sources, environment: environment)
    }

    static func parse(
        bytes: [UInt8], path: String, sources: [SourceDescriptor], environment: [String: String]
    ) throws -> FeedsDocument {
        let file = SourceFile(path: path, text: displayText(bytes))
        let root = try YAMLParser(file: file, environment: environment).parse(bytes)
        var validator = FeedsValidator(file: file, sources: sources, home: environment["HOME"], environment: environment)
        let document = try validator.document(root)
        try ConfigErrors.throwIfAny(validator.errors)
        return document
    }

    /// The text errors quote, with lines numbered as libyaml numbers them: CR LF, CR, NEL, LS and
    /// PS each end a line (`SourceFile` splits on LF only), and a byte-order mark takes no column.
    static func displayText(_ bytes: [UInt8]) -> String {
        var scalars = String.UnicodeScalarView()
        var previous: Unicode.Scalar?
        for scalar in String(decoding: bytes, as: UTF8.self).unicodeScalars {
            defer { previous = scalar }
            switch scalar {
            case "\u{FEFF}" where previous == nil:
                continue
            case "\n" where previous == "\r":
                continue
            case "\r", "\u{85}", "\u{2028}", "\u{2029}":
                scalars.append("\n")
            default:
                scalars.append(scalar)
            }
        }
        return String(scalars)
    }

    /// The file's bytes, or a ``ConfigError`` naming the path and the system's reason.
    static func readFile(_ path: String) throws -> [UInt8] {
        func failure(_ code: Int32) -> ConfigError {
            ConfigError("cannot read \(path): \(String(cString: strerror(code)))", at: nil)
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(errno) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure(errno)
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
            guard bytes.count <= maximumFileSize else {
                throw ConfigError(
                    "cannot read \(path): larger than \(maximumFileSize / (1 << 20)) MiB, too large for a configuration file",
                    at: nil)
            }
        }
    }
}
