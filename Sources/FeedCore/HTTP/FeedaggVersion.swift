/// The version of feedagg, in one place: `feedagg --version` prints it and the default
/// `User-Agent` (`feedagg/<version>`) carries it.
public enum FeedaggVersion {
    /// The release version, e.g. `0.1`.
    public static let current = "0.1"

    /// The default `User-Agent` header value: `feedagg/<version>`.
    public static var userAgent: String { "feedagg/\(current)" }
}
