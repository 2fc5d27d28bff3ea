import FeedCore
import FeedaggTesting
import Foundation
import GRDB
import Testing

@testable import FeedStore

@Suite("Staged pulls: checkpoints")
struct StagingTests {
    @Test("a fan-out's remaining URLs are written once; later pages record only how many remain, and resume rebuilds them")
    func fanOutListWrittenOnce() throws {
        let directory = try TemporaryFolder("feedstore-tests")
        defer { directory.remove() }
        let path = directory.path("s.sqlite")
        let store = try FeedStore.open(path: path)
        guard case .fresh(let ticket) = try store.beginPull(feed: "f", source: "s", fingerprint: "fp", restart: false)
        else {
            Issue.record("a new feed starts fresh")
            return
        }
        let urls = (2...300).map { URL(string: "https://api.test/list?page=\($0)&access_token=secret-token-1")! }
        for number in 1...3 {
            let resume = ResumePoint(
                nextPage: number + 1, urls: Array(urls[(number - 1)...]), knownCount: true, expectedPages: 300,
                visited: ["https://api.test/list?page=\(number)&access_token=secret-token-1"])
            try store.stagePage(
                AcceptedPage(number: number, items: [item("i\(number)")], resume: resume), ticket: ticket)
        }
        let row = try #require(
            try DatabaseQueue(path: path).read { db in
                try Row.fetchOne(db, sql: "SELECT resume, fanout, fanout_count, fanout_remaining FROM pull_checkpoint")
            })
        let resumeText: String = try row.decode(String.self, forColumn: "resume")
        #expect(resumeText.count < 600, "the per-page resume point does not carry the URL list: \(resumeText.count) bytes")
        #expect(try row.decode(Int.self, forColumn: "fanout_count") == 299)
        #expect(try row.decode(Int.self, forColumn: "fanout_remaining") == 297)
        let fanout: String = try row.decode(String.self, forColumn: "fanout")
        #expect(!fanout.contains("secret-token-1") && !resumeText.contains("secret-token-1"))

        let point = try #require(try store.checkpoint(feed: "f")?.resume)
        #expect(point.nextPage == 4)
        #expect(point.urls.map { Redaction.redact($0) } == urls[2...].map { Redaction.redact($0) })
        try store.close()
    }
}
