import Foundation
import Testing

@testable import WebFeedSource

@Suite("Format sniffing")
struct FeedSnifferTests {
    /// Starts of bodies: the usual ones and the ones the byte fast path must leave to `kind(of:)`.
    static let starts = [
        "", "  \n\t", "\u{FEFF}<rss/>", "<?xml version=\"1.0\"?>\n<rss version=\"2.0\">",
        "<?xml version=\"1.0\"?><!-- c --><feed xmlns=\"x\">", "<?xml", "<!-- open", "{\"version\":1}", "[1]",
        "<html><head><title>Hi</title>", "<!DOCTYPE html><html>", "<!doctype rss SYSTEM 'x'><rss>", "\u{00A0}<rss>",
        "\u{2028}{}", "<rdf:RDF xmlns:rdf='x'>", "<HTML>", "<Body>", "<bodyx>", "<Ärger>", "<aÄ>", "hello",
        "<![CDATA[x]]>", "\r\n<feed>", "<?xml?>  <?pi x?><head>", "\u{0B}\u{0C}<x-y:z>",
    ]

    @Test("the byte fast path decides as kind(of:) does, and leaves the rest to it")
    func asciiFastPath() {
        for start in Self.starts {
            let fast = Array(start.utf8).withUnsafeBytes { FeedSniffer.asciiKind(of: $0) }
            if let fast { #expect(fast == FeedSniffer.kind(of: start), "\(start.debugDescription)") }
        }
        let decided = ["<?xml version=\"1.0\"?>\n<rss version=\"2.0\">", "{\"version\":1}", "", "<feed>", "<!-- c --><rdf:RDF>"]
        for start in decided {
            #expect(Array(start.utf8).withUnsafeBytes { FeedSniffer.asciiKind(of: $0) } != nil, "\(start.debugDescription)")
        }
        for start in ["<html>", "\u{00A0}<rss>", "<!DOCTYPE html>", "hello", "<Ärger>"] {
            #expect(Array(start.utf8).withUnsafeBytes { FeedSniffer.asciiKind(of: $0) } == nil, "\(start.debugDescription)")
        }
    }

    @Test("sniff gives the same kinds as before for every start")
    func sniffKinds() {
        for start in Self.starts {
            #expect(FeedSniffer.sniff(Data(start.utf8), contentType: nil).kind == FeedSniffer.kind(of: start), "\(start.debugDescription)")
        }
    }
}
