import FeedCore
import FeedaggTesting
import Foundation
import PhotosSource
import Testing

// photos.500px configured from feeds.yaml: endpoints, paging, the consumer key, the descriptor.

@Suite("500px parameters")
struct FiveHundredPxParameterTests {
    @Test("endpoints honour base_url, feature, only and consumer_key")
    func endpoints() throws {
        #expect(try FiveHundredPxSource.make([("feature", "editors")], baseURL: "http://127.0.0.1:8765").firstPageURL.absoluteString
            == "http://127.0.0.1:8765/v1/photos?feature=editors")
        #expect(try FiveHundredPxSource.make([]).firstPageURL.absoluteString
            == "https://api.500px.com/v1/photos?feature=popular")
        #expect(try FiveHundredPxSource.make([("only", "Black and White"), ("consumer_key", "k3y")]).firstPageURL.absoluteString
            == "https://api.500px.com/v1/photos?feature=popular&only=Black%20and%20White&consumer_key=k3y")
    }

    @Test("the pagination strategy adds the page size: page and rpp for 500px")
    func firstPages() throws {
        let photos = try FiveHundredPxSource.make([("feature", "editors")])
        #expect(photos.pagination.firstPage(photos.firstPageURL, pageSize: 20).absoluteString
            == "https://api.500px.com/v1/photos?feature=editors&page=1&rpp=20")
    }

    @Test("the consumer key is a query parameter, redacted in printed URLs, not a credential header")
    func headers() throws {
        let photos = try FiveHundredPxSource.make([("consumer_key", "k3y")])
        #expect(photos.credentialHeaders.fields.isEmpty)
        #expect(Redaction.redact(photos.firstPageURL) == "https://api.500px.com/v1/photos?feature=popular&consumer_key=REDACTED")
    }

    @Test("the descriptor lists every parameter the source reads")
    func descriptors() {
        func names(_ descriptor: SourceDescriptor) -> [String] { descriptor.parameters.map(\.name) }
        #expect(names(FiveHundredPxSource.descriptor) == ["feature", "only", "consumer_key"])
        #expect(FiveHundredPxSource.descriptor.typeName == "photos.500px")
        #expect(FiveHundredPxSource.descriptor.defaultBaseURL == "https://api.500px.com")
        #expect(FiveHundredPxSource.descriptor.defaultPageSize == 20)
        #expect(FiveHundredPxSource.descriptor.maxPageSize == 100)
    }
}
