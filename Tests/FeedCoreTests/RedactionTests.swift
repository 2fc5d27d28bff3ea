import FeedCore
import Foundation
import Testing

// Secrets in URLs (issue 25): shown URLs redact user-info and every query parameter whose name
// contains a secret's mark; stored URLs redact an exact list (cursors must stay requestable).

@Suite("Redaction of URLs")
struct RedactionTests {
    @Test(
        "shown URLs redact user-info and parameters named like secrets, in any case",
        arguments: [
            ("https://gitlab.example/feed.atom?private_token=glpat-123&page=2", "https://gitlab.example/feed.atom?private_token=REDACTED&page=2"),
            ("https://u:pw@host.example/a?x=1", "https://host.example/a?x=1"),
            ("https://s3.example/o?X-Amz-Signature=abc&X-Amz-Credential=def", "https://s3.example/o?X-Amz-Signature=REDACTED&X-Amz-Credential=REDACTED"),
            ("https://api.example/v1?apiKey=k&sessionid=s&authCode=a&q=swift", "https://api.example/v1?apiKey=REDACTED&sessionid=REDACTED&authCode=REDACTED&q=swift"),
            ("https://api.example/v1?page=3&per_page=50", "https://api.example/v1?page=3&per_page=50"),
            ("not a url", "not a url"),
        ])
    func shown(_ input: String, _ expected: String) {
        #expect(Redaction.shown(input) == expected)
    }

    @Test("stored URLs keep cursor-like parameters (page_token) but redact the exact secret names (private_token)")
    func stored() {
        let url = "https://api.example/items?page_token=CURSOR1&private_token=SECRET&access_token=T"
        #expect(Redaction.redact(url) == "https://api.example/items?page_token=CURSOR1&private_token=REDACTED&access_token=REDACTED")
        #expect(Redaction.shown(url) == "https://api.example/items?page_token=REDACTED&private_token=REDACTED&access_token=REDACTED")
        let first = URL(string: "https://api.example/items?private_token=SECRET&access_token=T")!
        #expect(Redaction.restore(Redaction.redact(url), secretsFrom: first)?.absoluteString == url)
    }

    @Test("URLs inside a message are redacted, the rest of it kept")
    func insideText() {
        let text = "GET https://h.example/x?token=abc failed; see (http://u:p@h.example/y?key=1) and ftp://plain"
        #expect(
            Redaction.shownText(text)
                == "GET https://h.example/x?token=REDACTED failed; see (http://h.example/y?key=REDACTED) and ftp://plain")
        #expect(Redaction.shownText("no url here") == "no url here")
    }

    @Test("10,000 random messages with URL pieces: no crash, and redacting twice changes nothing more")
    func randomMessages() {
        let pieces = ["https://", "http://u:p@", "h.example", "/x", "?", "&", "token=", "key=", "s3cr3t", "=", " ", ")", "(",
            ".", ",", "\"", "://", "é", "%20", "#f"]
        var state: UInt64 = 0xC0FFEE
        for _ in 0..<10_000 {
            var text = ""
            for _ in 0..<Int(state % 12) {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                text += pieces[Int((state >> 33) % UInt64(pieces.count))]
            }
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let once = Redaction.shownText(text)
            #expect(Redaction.shownText(once) == once, "\(text.debugDescription) -> \(once.debugDescription)")
        }
    }

    @Test("redact_params adds names for shown and stored URLs")
    func addedNames() {
        let url = "https://api.example/feed?zz_feed_pass_7c1=hunter2&page=1"
        #expect(Redaction.shown(url) == url)
        Redaction.addShownSecretParameters(["ZZ_Feed_Pass_7c1"])
        #expect(Redaction.shown(url) == "https://api.example/feed?zz_feed_pass_7c1=REDACTED&page=1")
        #expect(Redaction.redact(url) == "https://api.example/feed?zz_feed_pass_7c1=REDACTED&page=1")
    }
}
