import FeedConfig
import FeedCore
import Foundation
public import WebFeedSource

/// `feedagg import opml`: appends an OPML list's subscriptions to feeds.yaml as `source: feed`
/// entries, as text, so the file's comments and layout stay as they are.
public struct OPMLImport: Sendable {
    /// What an import did.
    public struct Outcome: Sendable {
        /// The new feeds.yaml text.
        public var text: String
        /// The feeds added: (name, url).
        public var added: [(name: String, url: String)]
        /// The subscriptions left out, each with why.
        public var skipped: [String]
    }

    /// The existing feeds' names and `url`s, read from `text` with the loader.
    let names: Set<String>
    let urls: Set<String>
    let text: String

    /// Reads the feeds already declared in `text` (a feeds.yaml at `path`).
    public init(text: String, path: String, environment: [String: String]) throws {
        let document = try FeedsLoader.parse(
            text: text, path: path, sources: SourceRegistry.builtIn.descriptors, environment: environment)
        names = Set(document.feeds.map(\.name))
        urls = Set(document.feeds.compactMap { try? $0.parameters.string("url") }.map(Self.normalized))
        self.text = text
    }

    /// A URL compared without case in its scheme and host and without a trailing slash.
    static func normalized(_ url: String) -> String {
        var text = url.trimmingCharacters(in: .whitespaces)
        while text.hasSuffix("/") { text.removeLast() }
        guard var components = URLComponents(string: text) else { return text }
        components.scheme = components.scheme?.lowercased()
        components.host = components.host?.lowercased()
        return components.string ?? text
    }

    /// Appends `subscriptions` to the `feeds:` list, refusing duplicates by URL and non-http(s) URLs.
    public func apply(_ subscriptions: [OPMLDocument.Subscription]) -> Outcome {
        var names = self.names
        var urls = self.urls
        var added: [(name: String, url: String)] = []
        var skipped: [String] = []
        var entries: [String] = []
        for subscription in subscriptions {
            let label = subscription.title.map { "'\($0)' (\(subscription.url))" } ?? subscription.url
            guard let url = URL(string: subscription.url), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
                url.host != nil
            else {
                skipped.append("\(label): not an http(s) URL")
                continue
            }
            guard urls.insert(Self.normalized(subscription.url)).inserted else {
                skipped.append("\(label): already in feeds.yaml")
                continue
            }
            let name = Self.uniqueName(subscription.title ?? url.host ?? "feed", taken: names)
            names.insert(name)
            added.append((name, subscription.url))
            entries.append("- name: \(Self.quoted(name))\n  source: feed\n  url: \(Self.quoted(subscription.url))")
        }
        return Outcome(text: Self.append(entries, to: text), added: added, skipped: skipped)
    }

    /// A feed name from a title: lowercase letters, digits and dashes, unique among `taken`.
    static func uniqueName(_ title: String, taken: Set<String>) -> String {
        var slug = ""
        for character in title.lowercased() {
            if character.isASCII, character.isLetter || character.isNumber {
                slug.append(character)
            } else if !slug.isEmpty, slug.last != "-" {
                slug.append("-")
            }
        }
        while slug.hasSuffix("-") { slug.removeLast() }
        if slug.isEmpty { slug = "feed" }
        if slug.count > 40 { slug = String(slug.prefix(40)) }
        var name = slug
        var number = 2
        while taken.contains(name) {
            name = "\(slug)-\(number)"
            number += 1
        }
        return name
    }

    /// `text` as a YAML double-quoted scalar.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    out += String(format: "\\x%02X", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// `entries` (each `- name: …` with two-space continuation lines) inserted at the end of the
    /// top-level `feeds:` block with its items' indentation; a `feeds:` block is added when the
    /// file has none. The rest of the text is left byte for byte.
    static func append(_ entries: [String], to text: String) -> String {
        guard !entries.isEmpty else { return text }
        var lines = text.components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() }
        guard let start = lines.firstIndex(where: { $0.hasPrefix("feeds:") }) else {
            let block = ["feeds:"] + entries.flatMap { indent($0, by: "  ") }
            return (lines + block).joined(separator: "\n") + "\n"
        }
        var end = start + 1
        var indentation = "  "
        var sawItem = false
        var lastContent = start
        while end < lines.count {
            let line = lines[end]
            let trimmed = line.drop(while: { $0 == " " })
            if let first = line.first, first != " ", first != "#", first != "-" { break }
            if !sawItem, trimmed.hasPrefix("- ") || trimmed == "-" {
                indentation = String(line.prefix(while: { $0 == " " }))
                sawItem = true
            }
            if !trimmed.isEmpty, !trimmed.hasPrefix("#") { lastContent = end }
            end += 1
        }
        // `feeds: []` on one line: the list is replaced by a block.
        if lines[start].replacingOccurrences(of: " ", with: "") == "feeds:[]" { lines[start] = "feeds:" }
        let block = entries.flatMap { indent($0, by: indentation) }
        lines.insert(contentsOf: block, at: lastContent + 1)
        return lines.joined(separator: "\n") + "\n"
    }

    private static func indent(_ entry: String, by prefix: String) -> [String] {
        entry.components(separatedBy: "\n").map { prefix + $0 }
    }
}
