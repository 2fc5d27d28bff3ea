/// Counts in messages: `1 feed`, `2 feeds`, `0 pages` (never `1 feeds`).
public enum Plural {
    /// `count` and `noun`, with an `s` (or `plural`) unless `count` is 1.
    public static func of(_ count: Int, _ noun: String, plural: String? = nil) -> String {
        "\(count) " + (count == 1 ? noun : plural ?? noun + "s")
    }
}
