import FeedCore
import Foundation

extension XMLFeedParser {
    /// Media RSS (`http://search.yahoo.com/mrss/`) anywhere in an entry, `media:group` and
    /// `media:content` included: `thumbnail` and image `content` as the image, `title` and
    /// `description` as the last resort for the title and summary.
    mutating func readMedia(_ name: String, _ attributes: [XMLAttribute], base: URL) throws(FeedParseError) {
        switch name {
        case "thumbnail":
            offerImage(Self.attribute("url", attributes), base: base, rank: Rank.mediaThumbnail)
        case "content":
            if Self.attribute("medium", attributes)?.lowercased() == "image" || Self.isImage(Self.attribute("type", attributes)) {
                offerImage(Self.attribute("url", attributes), base: base, rank: Rank.mediaContent)
            }
        case "title":
            guard draft?.wants(.title, Rank.mediaTitle) == true else { return }
            let html = Self.attribute("type", attributes)?.lowercased() == "html"
            let title = try stream.textBytes().withUnsafeBufferPointer {
                html ? HTMLText.plainText(bytes: $0) : HTMLText.fold(bytes: $0)
            }
            draft?.offer(Self.nonEmpty(title), to: .title, rank: Rank.mediaTitle)
        case "description":
            guard draft?.wants(.summary, Rank.mediaDescription) == true else { return }
            let html = Self.attribute("type", attributes)?.lowercased() == "html"
            draft?.offerSummary(try stream.textBytes(), markup: html ? .html : .text, rank: Rank.mediaDescription)
        default:
            break
        }
    }

    /// The iTunes podcast elements of an item: `author`, `image href`, `summary`, `subtitle`.
    mutating func readITunes(_ name: String, _ attributes: [XMLAttribute], base: URL) throws(FeedParseError) {
        switch name {
        case "image":
            offerImage(Self.attribute("href", attributes), base: base, rank: Rank.itunesImage)
        case "author":
            if let author = Self.nonEmpty(try stream.foldedText()) {
                draft?.offerAuthor(FeedAuthor(name: author), rank: Rank.itunesAuthor)
            }
        case "summary":
            if draft?.wants(.summary, Rank.itunesSummary) == true {
                draft?.offerSummary(try stream.textBytes(), markup: .html, rank: Rank.itunesSummary)
            }
        case "subtitle":
            if draft?.wants(.summary, Rank.itunesSubtitle) == true {
                draft?.offerSummary(try stream.textBytes(), markup: .html, rank: Rank.itunesSubtitle)
            }
        default:
            break
        }
    }

    /// Offers `reference`, resolved against `base`, as the image.
    mutating func offerImage(_ reference: String?, base: URL, rank: UInt8) {
        guard draft?.wants(.image, rank) == true, let reference, let url = Self.resolve(reference, base) else { return }
        draft?.offer(url.absoluteString, to: .image, rank: rank)
    }

    /// Whether a MIME type is an image's.
    static func isImage(_ type: String?) -> Bool { type?.lowercased().hasPrefix("image/") == true }
}
