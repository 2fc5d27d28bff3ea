import FeedCore
import Foundation
import FuzzSupport
import PhotosSource

// libFuzzer target: FiveHundredPxSource.decodePage on the fuzz bytes as a 200 JSON body, then the source's
// pagination on the decoded page (page numbers from the body's totals).

private let source = FuzzSupport.source(FiveHundredPxSource.self, """
    feeds:
      - name: fuzz
        source: photos.500px
        feature: editors
        base_url: https://api.500px.com/base/
    """)
private let pageURL = URL(string: "https://api.500px.com/base/v1/photos?feature=editors&page=1&rpp=20")!

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzPhotos500px(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzSupport.decodeAndPaginate(source, data, size, url: pageURL, pageSize: 20)
}

@main
enum Main {
    static func main() { FuzzSupport.run(fuzzPhotos500px) }
}
