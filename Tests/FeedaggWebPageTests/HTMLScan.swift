import Foundation

/// A small scan of the tags of an HTML document: every start tag's name and attributes, in order.
/// Enough to check what a page can execute or load (tags, `on…` attributes, `href`/`src` values),
/// which a substring search alone cannot prove.
struct HTMLScan {
    struct Tag {
        var name: String
        var attributes: [(name: String, value: String)]
        func value(_ name: String) -> String? { attributes.first { $0.name == name }?.value }
    }

    var tags: [Tag] = []
    /// The text outside tags, entities decoded for `&lt; &gt; &amp; &quot; &#39;`.
    var text = ""

    init(_ html: String) {
        var index = html.startIndex
        while index < html.endIndex {
            guard let open = html[index...].firstIndex(of: "<") else {
                text += Self.decoded(String(html[index...]))
                break
            }
            text += Self.decoded(String(html[index..<open]))
            guard let close = html[open...].firstIndex(of: ">") else { break }
            let inside = html[html.index(after: open)..<close]
            index = html.index(after: close)
            if inside.hasPrefix("/") || inside.hasPrefix("!") { continue }
            tags.append(Self.tag(String(inside)))
        }
    }

    static func tag(_ inside: String) -> Tag {
        var scanner = Substring(inside)
        let name = String(scanner.prefix { !$0.isWhitespace && $0 != "/" }).lowercased()
        scanner = scanner.dropFirst(name.count)
        var attributes: [(String, String)] = []
        while true {
            scanner = scanner.drop { $0.isWhitespace || $0 == "/" }
            guard !scanner.isEmpty else { break }
            let attribute = String(scanner.prefix { !$0.isWhitespace && $0 != "=" }).lowercased()
            scanner = scanner.dropFirst(attribute.count)
            var value = ""
            if scanner.first == "=" {
                scanner = scanner.dropFirst()
                if let quote = scanner.first, quote == "\"" || quote == "'" {
                    scanner = scanner.dropFirst()
                    value = String(scanner.prefix { $0 != quote })
                    scanner = scanner.dropFirst(value.count + 1)
                } else {
                    value = String(scanner.prefix { !$0.isWhitespace })
                    scanner = scanner.dropFirst(value.count)
                }
            }
            attributes.append((attribute, decoded(value)))
        }
        return Tag(name: name, attributes: attributes)
    }

    static func decoded(_ text: String) -> String {
        text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
