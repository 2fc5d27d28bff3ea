import FeedCore
import Foundation
import FuzzSupport
import WebFeedSource

// libFuzzer target: FeedDocument.parse (format sniffing, libxml2's streaming reader, the JSON
// Feed reader, HTML-to-text, dates) on the fuzz bytes. The first byte picks the Content-Type the
// body is served with (none, a charset, HTML), so charset handling is fuzzed too. Errors are
// expected; a crash, a leak or a hang is a finding.

private let contentTypes: [String?] = [
    nil, "application/atom+xml", "application/rss+xml; charset=iso-8859-1", "text/xml; charset=windows-1252",
    "application/xml; charset=utf-16", "text/html; charset=utf-8", "application/feed+json", "text/xml; charset=bogus",
]
private let url = URL(string: "https://fuzz.test/feeds/index.xml")!
private let limits = FeedDocument.Limits(maxBytes: 1 << 20, maxEntries: 10_000)

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzFeedParser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { return 0 }
    let contentType = contentTypes[Int(data[0]) % contentTypes.count]
    let body = Data(bytes: data + 1, count: size - 1)
    if let document = try? FeedDocument.parse(body, contentType: contentType, url: url, limits: limits) {
        for entry in document.entries { _ = entry.item(feedName: "fuzz") }
    }
    return 0
}

@main
enum Main {
    static func main() { FuzzSupport.run(fuzzFeedParser) }
}
