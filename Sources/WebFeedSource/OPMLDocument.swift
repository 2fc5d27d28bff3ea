public import Foundation

/// An OPML subscription list (OPML 1.0/2.0): what feed readers import and export.
public struct OPMLDocument: Sendable {
    /// One subscription: an `<outline>` with an `xmlUrl`.
    public struct Subscription: Sendable, Hashable {
        /// `title`, else `text`, else nil.
        public var title: String?
        /// The feed's URL (`xmlUrl`), as written.
        public var url: String
        /// The site (`htmlUrl`), if given.
        public var siteURL: String?

        /// Creates a subscription.
        public init(title: String?, url: String, siteURL: String? = nil) {
            self.title = title
            self.url = url
            self.siteURL = siteURL
        }
    }

    /// Every outline with an `xmlUrl`, at any depth (folders flattened), in document order.
    public var subscriptions: [Subscription]

    /// Reads `data` with the feed parser's libxml2 reader (same options: no network, no entity
    /// substitution, no DTD).
    public static func parse(_ data: Data, path: String) throws(FeedParseError) -> OPMLDocument {
        do {
            return try data.withUnsafeBytes { bytes in
                guard let stream = XMLStream(bytes: bytes, url: URL(fileURLWithPath: path).absoluteString, encoding: nil) else {
                    throw FeedParseError("libxml2 cannot read \(path)")
                }
                var subscriptions: [Subscription] = []
                var sawRoot = false
                while try stream.read() {
                    guard stream.nodeType == XMLStream.NodeType.element else { continue }
                    if !sawRoot {
                        guard stream.localName == "opml" else {
                            throw FeedParseError(
                                "\(path) is not OPML: its root element is <\(FeedSniffer.printable(stream.localName, limit: 40))>",
                                line: stream.line)
                        }
                        sawRoot = true
                        continue
                    }
                    guard stream.localName == "outline" else { continue }
                    let attributes = stream.attributes()
                    func value(_ name: String) -> String? {
                        attributes.first { $0.localName == name && $0.namespace.isEmpty }.flatMap { HTMLText.trimmed($0.value) }
                    }
                    guard let url = value("xmlUrl") else { continue }
                    subscriptions.append(
                        Subscription(title: value("title") ?? value("text"), url: url, siteURL: value("htmlUrl")))
                }
                guard sawRoot else { throw FeedParseError("\(path) is empty, not OPML") }
                return OPMLDocument(subscriptions: subscriptions)
            }
        } catch let error as FeedParseError {
            throw error
        } catch {
            throw FeedParseError("\(error)")
        }
    }

    /// An OPML 2.0 document listing `subscriptions` (`type="rss"`, XML-escaped).
    public static func render(_ subscriptions: [Subscription], title: String) -> String {
        func escape(_ text: String) -> String {
            var out = ""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "&": out += "&amp;"
                case "<": out += "&lt;"
                case ">": out += "&gt;"
                case "\"": out += "&quot;"
                case "\n", "\t", "\r": out += " "
                default:
                    // XML 1.0 forbids most control characters: drop them.
                    if scalar.value >= 0x20 && !(0x7F...0x9F).contains(scalar.value) { out.unicodeScalars.append(scalar) }
                }
            }
            return out
        }
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#, #"<opml version="2.0">"#,
            "  <head><title>\(escape(title))</title></head>", "  <body>",
        ]
        for subscription in subscriptions {
            let name = escape(subscription.title ?? subscription.url)
            let site = subscription.siteURL.map { #" htmlUrl="\#(escape($0))""# } ?? ""
            lines.append(#"    <outline type="rss" text="\#(name)" title="\#(name)" xmlUrl="\#(escape(subscription.url))"\#(site)/>"#)
        }
        lines += ["  </body>", "</opml>", ""]
        return lines.joined(separator: "\n")
    }
}
