extension FeedParameters {
    /// A sequence of scalars (`[path, argument…]`), or `nil` when absent. Each element is the
    /// scalar's text with its node, for located errors.
    public func list(_ key: String) throws -> [(text: String, node: ConfigNode)]? {
        guard let node = value(key) else { return nil }
        guard case .sequence(let elements) = node.value else {
            throw ConfigError("'\(key)' must be a list, found \(node.kindDescription)", at: node.location)
        }
        return try elements.map { element in
            guard let text = element.scalar else {
                throw ConfigError(
                    "each element of '\(key)' must be a string, found \(element.kindDescription)", at: element.location)
            }
            return (text, element)
        }
    }
}
