extension FeedParameters {
    /// The optional string `key`, which must be one of `allowed`.
    ///
    /// - Parameters:
    ///   - context: words after the list in the error (`" for an organization"`).
    /// - Throws: ``ConfigError`` at the value, `'sort' must be one of created, updated, found
    ///   'updatd'`, with a did-you-mean note when a choice is close.
    public func choice(_ key: String, in allowed: [String], context: String = "") throws -> String? {
        guard let value = try string(key) else { return nil }
        guard allowed.contains(value) else {
            throw ConfigError(
                "'\(key)' must be one of \(allowed.joined(separator: ", "))\(context), found '\(value)'",
                at: self.value(key)?.location ?? node.location, notes: Suggestion.didYouMean(value, in: allowed))
        }
        return value
    }
}
