@testable import FeedCore
import Foundation
import Testing

@Suite("Canonical URLs: the fast path and URLComponents agree")
struct CanonicalURLTests {
    /// Every http(s) URL in the recorded fixtures and the real-world recordings.
    static func recordedURLs() throws -> [String] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let folders = [root.appendingPathComponent("Fixtures"), root.appendingPathComponent("../shared/realworld")]
        let pattern = try NSRegularExpression(pattern: #"https?://[^\s"'<>\\]+"#)
        var urls = Set<String>()
        for folder in folders {
            guard let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { continue }
            for case let file as URL in files where ["json", "txt", "har", "yaml"].contains(file.pathExtension) {
                guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
                let range = NSRange(text.startIndex..., in: text)
                for match in pattern.matches(in: text, range: range) {
                    if let r = Range(match.range, in: text) { urls.insert(String(text[r])) }
                }
            }
        }
        return urls.sorted()
    }

    static let edgeCases = [
        "https://github.com/apple/swift", "https://github.com/apple/swift/", "https://github.com/", "https://github.com",
        "https://GitHub.com/apple", "http://github.com/apple", "https://github.com:443/apple", "https://github.com:8443/a",
        "https://github.com/apple#readme", "https://github.com/a?b=1", "https://github.com/a/?b=1", "https://github.com?x",
        "https://github.com/a?", "https://github.com/a?b/", "https://github.com//a", "https://h/a:b", "https://h/a(b)'c*",
        "https://h/a%20b", "https://h/a b", " https://h/a", "https://h/a?x=%7B", "https://h/a?x={", "https://h/a|b",
        "https://user@h/a", "https://[::1]/a", "https://h_1.example/a", "https://h/ü", "https://a..b/c", "https://-a/",
        "https://h/a?b?c", "https://h/a;b=c,d", "https://h/~user/x.y_z-w", "https:///a", "https://", "https://h/a/b//",
        "https://500px.com/photo/123/some-name", "https://gist.github.com/4242", "https://avatars.githubusercontent.com/u/1?v=4",
    ]

    @Test("the fast path returns exactly what URLComponents does, wherever it answers")
    func canonicalURLMatchesTheGeneralPath() throws {
        let recorded = try Self.recordedURLs()
        #expect(recorded.count > 100, "the fixtures hold URLs")
        var fast = 0
        for url in recorded + Self.edgeCases {
            let general = UnifiedStream.canonicalURLByComponents(url)
            if let quick = UnifiedStream.alreadyCanonical(url) {
                fast += 1
                #expect(quick == general, "\(url): fast \(quick), URLComponents \(general ?? "nil")")
            }
            #expect(UnifiedStream.canonicalURL(url) == general, "\(url)")
        }
        #expect(fast > recorded.count / 2, "most recorded URLs take the fast path (\(fast) of \(recorded.count))")
    }
}
