public import Foundation

/// One link-value of an RFC 8288 `Link` header.
public struct WebLink: Sendable, Equatable {
    /// The target URI reference, exactly as written between `<` and `>`.
    public var target: String
    /// Link parameters in order, names lower-cased, values unquoted and unescaped.
    public var parameters: [(name: String, value: String)]

    /// Creates a link.
    public init(target: String, parameters: [(name: String, value: String)]) {
        self.target = target
        self.parameters = parameters
    }

    /// The first value of parameter `name` (case-insensitive).
    public func parameter(_ name: String) -> String? {
        let lower = name.lowercased()
        return parameters.first { $0.name == lower }?.value
    }

    /// The relation types: the space-separated tokens of the first `rel` parameter, lower-cased.
    public var relations: [String] {
        guard let rel = parameter("rel") else { return [] }
        return rel.split(whereSeparator: { $0 == " " || $0 == "\t" }).map { $0.lowercased() }
    }

    /// The target resolved against `base` (the URL the header came with).
    public func resolved(against base: URL?) -> URL? {
        URL(string: target, relativeTo: base)?.absoluteURL
    }

    /// Equal when the targets and the parameters (in order) are.
    public static func == (lhs: WebLink, rhs: WebLink) -> Bool {
        lhs.target == rhs.target
            && lhs.parameters.elementsEqual(rhs.parameters) { $0.name == $1.name && $0.value == $1.value }
    }
}
