package import FeedCore

/// The fields of a 500px photo that `photos.500px` reads.
package struct PhotoDTO: JSONObjectReadable, Equatable {
    package var id: Int
    package var name: String?
    package var description: String?
    package var url: String?
    package var imageURL: ImageURLField?
    package var images: [Image]?
    package var createdAt: String?
    package var user: User?

    /// The members read, in declaration order.
    package static let fields = JSONFields<PhotoDTO>(PhotoDTO(id: 0), [
        .field("id", \.id),
        .field("name", \.name),
        .field("description", \.description),
        .field("url", \.url),
        .field("image_url", \.imageURL),
        .field("images", \.images),
        .field("created_at", \.createdAt),
        .field("user", \.user),
    ])

    /// `image_url` is a string, or an array of strings when several `image_size`s were asked for.
    package enum ImageURLField: JSONReadable, Equatable {
        case one(String)
        case many([String])

        package init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let many = try? container.decode([String].self) {
                self = .many(many)
            } else {
                self = .one(try container.decode(String.self))
            }
        }

        /// A string or an array of strings (a mixed array is left to `Decodable`).
        package static func read(from reader: inout JSONReader) throws(JSONReader.Unsupported) -> ImageURLField {
            guard try reader.peek() == UInt8(ascii: "[") else { return .one(try reader.readString()) }
            return .many(try [String].read(from: &reader))
        }

        /// The last (largest requested) URL.
        var best: String? {
            switch self {
            case .one(let url): url.isEmpty ? nil : url
            case .many(let urls): urls.last { !$0.isEmpty }
            }
        }
    }

    /// One entry of `images`.
    package struct Image: JSONObjectReadable, Equatable {
        package var size: Int?
        package var url: String?
        package var httpsURL: String?

        /// The members read, in declaration order.
        package static let fields = JSONFields<Image>(Image(), [
            .field("size", \.size),
            .field("url", \.url),
            .field("https_url", \.httpsURL),
        ])
    }

    /// The photographer.
    package struct User: JSONObjectReadable, Equatable {
        package var username: String?
        package var fullname: String?
        package var userpicURL: String?
        package var userpicHTTPSURL: String?

        /// The members read, in declaration order.
        package static let fields = JSONFields<User>(User(), [
            .field("username", \.username),
            .field("fullname", \.fullname),
            .field("userpic_url", \.userpicURL),
            .field("userpic_https_url", \.userpicHTTPSURL),
        ])
    }

    /// `image_url`, else the largest entry of `images`.
    var bestImageURL: String? {
        if let best = imageURL?.best { return best }
        let largest = (images ?? []).max { ($0.size ?? 0) < ($1.size ?? 0) }
        return [largest?.httpsURL, largest?.url].lazy.compactMap { $0 }.first { !$0.isEmpty }
    }
}
